import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunStreamChunk, Script } from '../../src/index.js';
import { flakyModels, hookCalls, toolboxAgent } from '../fixtures/agents.js';
import { collect, startWorker, type TestWorker } from '../helpers.js';

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([toolboxAgent], { models: flakyModels });
});
afterAll(async () => {
  await w?.stop();
});

/** Chunk types, with each run of text deltas (their count depends on the model) as one `text-delta*`. */
const types = (chunks: RunStreamChunk[]) =>
  chunks
    .map((c) => c.type)
    .filter((t, i, all) => !(t === 'text-delta' && all[i - 1] === 'text-delta'))
    .map((t) => (t === 'text-delta' ? 'text-delta*' : t));
const text = (chunks: RunStreamChunk[]) => chunks.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])).join('');

describe('stream()', () => {
  it('streams text, a tool call, an approval and a suspension, in order, each segment ending at a pause', async () => {
    const script: Script = [
      { text: 'Checking the database now.', toolCalls: [{ toolName: 'guarded', args: { target: 'db' } }] },
      { toolCalls: [{ toolName: 'ask', args: { question: 'Which colour?' } }] },
      { text: 'All done, green it is.' },
    ];
    const stream = await w.client.stream('toolbox-agent', 'go', { model: 'scripted', script });

    const first = await collect(stream);
    expect(types(first)).toEqual([
      'start',
      'start-step',
      'text-delta*',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-call',
      'tool-call-approval',
      'finish',
    ]);
    expect(text(first)).toBe('Checking the database now.');
    const approval = first.find((c) => c.type === 'tool-call-approval');
    expect(approval).toMatchObject({
      toolCallId: 'call-0-0',
      toolName: 'guarded',
      args: { target: 'db' },
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(first.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'suspended',
      pendingToolCalls: [{ toolCallId: 'call-0-0' }],
    });

    const second = await collect(await w.client.approveToolCall({ runId: stream.runId, by: 'ui' }));
    expect(types(second)).toEqual([
      'start',
      'tool-result',
      'step-finish',
      'start-step',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-call',
      'tool-call-suspended',
      'finish',
    ]);
    expect(second[0]).toMatchObject({ type: 'start', resumed: true });
    expect(second.find((c) => c.type === 'tool-result')).toMatchObject({ toolName: 'guarded', output: 'did db' });
    expect(second.find((c) => c.type === 'tool-call-suspended')).toMatchObject({
      toolName: 'ask',
      suspendPayload: { question: 'Which colour?' },
      payload: { toolName: 'ask', suspendPayload: { question: 'Which colour?' } },
    });

    const third = await collect(await w.client.resumeStream({ answer: 'green' }, { runId: stream.runId }));
    expect(types(third)).toEqual([
      'start',
      'tool-call-resumed',
      'tool-result',
      'step-finish',
      'start-step',
      'text-delta*',
      'step-finish',
      'finish',
    ]);
    expect(text(third)).toBe('All done, green it is.');
    expect(third.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', text: 'All done, green it is.' });

    // One log: the offsets of the three segments run on with no gap and no repeat.
    const offsets = [...first, ...second, ...third].map((c) => c.offset);
    expect(offsets).toEqual(offsets.map((_, i) => i));
  });

  it('loses and repeats nothing when a client disconnects mid-run and subscribes again from its offset', async () => {
    const script: Script = [
      { text: 'Working on it.', toolCalls: [{ toolName: 'slow', args: { ms: 1500 } }] },
      { text: 'Finished the slow part.' },
    ];
    const stream = await w.client.stream('toolbox-agent', 'go', { model: 'scripted', script });
    const before: RunStreamChunk[] = [];
    for await (const chunk of stream) {
      before.push(chunk);
      if (chunk.type === 'tool-call') break; // disconnect while the tool runs
    }
    const after = await collect(w.client.subscribe(stream.runId, { fromOffset: before.at(-1)!.offset + 1 }));
    const whole = await collect(w.client.subscribe(stream.runId, { fromOffset: 0 }));

    expect([...before, ...after]).toEqual(whole);
    expect(types(after)).toEqual(['tool-result', 'step-finish', 'start-step', 'text-delta*', 'step-finish', 'finish']);
  });

  it('marks a model attempt that failed and was retried, so a UI can drop its partial text', async () => {
    const stream = await w.client.stream('toolbox-agent', 'go', {
      model: 'flaky',
      script: [{ text: 'The real answer.' }],
    });
    const chunks = await collect(stream);
    const deltas = chunks.filter((c) => c.type === 'text-delta');
    expect(deltas[0]).toMatchObject({ attempt: 1, delta: 'Partial answer that will be dropped' });
    const retry = chunks.findIndex((c) => c.type === 'model-retry');
    expect(chunks[retry]).toMatchObject({ type: 'model-retry', stepNumber: 0, attempt: 2 });
    expect(text(chunks.slice(retry))).toBe('The real answer.');
    expect(
      chunks
        .slice(retry)
        .filter((c) => c.type === 'text-delta')
        .every((c) => 'attempt' in c && c.attempt === 2),
    ).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', text: 'The real answer.' });
  });

  it('keeps a finished run readable during the grace period, and gives a later subscriber the final result', async () => {
    const script: Script = [{ text: 'Short and done.' }];
    const within = await w.client.stream('toolbox-agent', 'go', { model: 'scripted', script, streamGraceMs: 60_000 });
    await collect(within);
    const reread = await collect(w.client.subscribe(within.runId));
    expect(types(reread)).toEqual(['start', 'start-step', 'text-delta*', 'step-finish', 'finish']);

    const closed = await w.client.stream('toolbox-agent', 'go', { model: 'scripted', script, streamGraceMs: 0 });
    await w.client.result(closed.runId); // the workflow has closed
    const late = await collect(w.client.subscribe(closed.runId));
    expect(late.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      text: 'Short and done.',
      usage: expect.any(Object),
      pendingToolCalls: [],
      offset: -1,
    });
  });

  it('calls the tool lifecycle hooks: input start, deltas and availability while the model streams, output after execute', async () => {
    hookCalls.length = 0;
    const script: Script = [
      { toolCalls: [{ toolName: 'hooked', args: { word: 'hi' }, toolCallId: 'h1' }] },
      { text: 'ok' },
    ];
    await collect(await w.client.stream('toolbox-agent', 'go', { model: 'scripted', script }));
    expect(hookCalls).toEqual(['start h1', 'delta h1 {"word":"hi"}', 'available h1 {"word":"hi"}', 'output h1 "HI"']);
  });

  it('streams a run without a worker-side pause the same way generate() returns it', async () => {
    const script: Script = [{ toolCalls: [{ toolName: 'add', args: { a: 2, b: 3 } }] }, { text: 'Five.' }];
    const stream = await w.client.stream('toolbox-agent', 'go', { model: 'scripted', script });
    const chunks = await collect(stream);
    const result = await w.client.next(stream.runId);
    expect(chunks.filter((c) => c.type === 'tool-result').map((c) => c.type === 'tool-result' && c.output)).toEqual(
      result.toolResults.map((r) => !r.isError && r.output),
    );
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', text: result.text, usage: result.usage });
  });
});
