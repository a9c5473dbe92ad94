/**
 * What keeps a run's history lean: a model call carries the one script step it needs, and a
 * continuation carries only the stream's open segment (readers behind it move on to what it has).
 */
import { describe, expect, it } from 'vitest';
import { ScriptExhaustedError, type Script } from '../../src/index.js';
import { ScriptedLanguageModel } from '../../src/worker/index.js';
import { StreamFeed } from '../../src/client/stream/stream-feed.js';
import { scriptForCall, scriptOfCall } from '../../src/schemas/script.js';
import type { RunChunk } from '../../src/schemas/stream-chunks.js';
import type { StreamPage } from '../../src/schemas/stream-protocol.js';
import { ChunkLog } from '../../src/workflows/stream/chunk-log.js';

const script: Script = [{ toolCalls: [{ toolName: 'noop' }] }, { toolCalls: [{ toolName: 'noop' }] }, { text: 'done' }];
const user = { role: 'user' };
const assistant = { role: 'assistant' };
const tool = { role: 'tool' };

describe('scriptForCall', () => {
  it('sends the step the scripted model answers with, where it sits in the script', () => {
    expect(scriptForCall(script, [user])).toEqual({ script: [script[0]], scriptWindow: { from: 0, length: 3 } });
    const later = scriptForCall(script, [user, assistant, tool, assistant, tool]);
    expect(later).toEqual({ script: [script[2]], scriptWindow: { from: 2, length: 3 } });
  });

  it("counts the run's steps after the thread's", () => {
    const messages = [user, assistant, user, assistant, tool];
    expect(scriptForCall(script, messages, 2).scriptWindow.from).toBe(1);
  });

  it('sends nothing past the end, and the model still says how long the script is', async () => {
    const call = scriptForCall(script, [user, assistant, assistant, assistant]);
    expect(call.script).toEqual([]);
    const model = new ScriptedLanguageModel(scriptOfCall(call.script, call.scriptWindow));
    const prompt = [user, assistant, assistant, assistant].map((m) =>
      m.role === 'user'
        ? { role: 'user' as const, content: [{ type: 'text' as const, text: 'go' }] }
        : { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'x' }] },
    );
    await expect(model.doGenerate({ prompt })).rejects.toThrow(ScriptExhaustedError);
    await expect(model.doGenerate({ prompt })).rejects.toThrow(/has 3 step\(s\), but model call 4/);
  });

  it('gives the scripted model the step at its index', async () => {
    const call = scriptForCall(script, [user, assistant, tool]);
    const model = new ScriptedLanguageModel(scriptOfCall(call.script, call.scriptWindow));
    const prompt = [
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'go' }] },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'x' }] },
    ];
    const result = await model.doGenerate({ prompt });
    expect(result.content).toEqual([{ type: 'tool-call', toolCallId: 'call-1-0', toolName: 'noop', input: '{}' }]);
  });

  it('takes a whole script (a call scheduled before) as it is', () => {
    expect(scriptOfCall(script, undefined)).toBe(script);
  });
});

describe('ChunkLog.carry', () => {
  it('carries the chunks from the open segment on, at their offsets', () => {
    const log = new ChunkLog();
    log.append('a', 'b', 'c', 'd');
    expect(log.carry(2)).toEqual({ base: 2, chunks: ['c', 'd'] });
    expect(log.carry()).toEqual({ base: 0, chunks: ['a', 'b', 'c', 'd'] });
    const next = new ChunkLog(log.carry(2));
    next.append('e');
    expect(next.read(0)).toEqual({ from: 2, chunks: ['c', 'd', 'e'], end: 5, live: false });
    expect(next.carry(0)).toEqual({ base: 2, chunks: ['c', 'd', 'e'] });
  });
});

describe('StreamFeed after a continuation', () => {
  it('moves on to where the continued run starts its log, rather than ask for what it dropped', async () => {
    const chunks: RunChunk[] = Array.from({ length: 10 }, (_, i) => ({ type: 'start-step', stepNumber: i }));
    let base = 0;
    const page = async (from: number): Promise<StreamPage> => {
      const at = Math.max(from, base);
      return { from: at, chunks: chunks.slice(at), end: chunks.length, live: false };
    };
    const feed = new StreamFeed('run-1', page, () => undefined);
    const first = await feed.read(0);
    expect('chunks' in first && first.next).toBe(10);
    // The run continues as new with its last segment only (from offset 12), then publishes more.
    chunks.push(...Array.from({ length: 5 }, (_, i): RunChunk => ({ type: 'start-step', stepNumber: 10 + i })));
    base = 12;
    const next = await feed.read(10);
    expect('chunks' in next && next.chunks.map((c) => c.offset)).toEqual([12, 13, 14]);
  });
});
