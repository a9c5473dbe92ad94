/**
 * What tools write to their run's stream (`context.writer`), and sub-agents' progress in the stream of
 * the run that streams them: read by a stream reader, and through the HTTP server as the AI SDK's UI
 * message stream (parsed by the AI SDK's own parser, as `useChat` reads it).
 */
import type { ServerType } from '@hono/node-server';
import {
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentProgress, type RunOptions, type RunStreamChunk, type Script } from '../../src/index.js';
import { DEFAULT_REQUEST_OPTIONS, startServer } from '../../src/server/index.js';
import { MAX_PROGRESS_BYTES, MAX_PROGRESS_SLICE_BYTES } from '../../src/schemas/limits.js';
import { writerAgent, writerSupervisor } from '../fixtures/writer-agents.js';
import { collect, startWorker, type TestWorker } from '../helpers.js';

let w: TestWorker;
let server: ServerType;
let base: string;

beforeAll(async () => {
  w = await startWorker([writerSupervisor]);
  server = await startServer(w.client, {
    port: 0,
    agents: [writerAgent, writerSupervisor],
    // The tests play the scripted model, so they may send its scripts.
    requestOptions: [...DEFAULT_REQUEST_OPTIONS, 'model', 'script', 'subAgentOptions'],
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await w?.stop();
});

const reportScript: Script = [
  { text: 'Let me report.', toolCalls: [{ toolName: 'report', args: { topic: 'tides' } }] },
  { text: 'Tides are done.' },
];

/** Chunk types in order, without the model's deltas (their count depends on the model). */
const events = (chunks: RunStreamChunk[]) =>
  chunks
    .map((c) => c.type)
    .filter((t) => !['text-delta', 'tool-input-start', 'tool-input-delta', 'tool-input-end'].includes(t));

const progressOf = (chunks: RunStreamChunk[]): AgentProgress[] =>
  chunks.flatMap((c) => (c.type === 'data-agent-progress' ? [c.data as AgentProgress] : []));

describe('context.writer', () => {
  it("streams what a tool writes between its call and its result, in order, with the run's own chunks", async () => {
    const chunks = await collect(
      await w.client.stream('writer-agent', 'go', { model: 'scripted', script: reportScript }),
    );
    expect(events(chunks)).toEqual([
      'start',
      'start-step',
      'tool-call',
      'data-progress',
      'data-progress',
      'data-note',
      'data-ping',
      'tool-result',
      'step-finish',
      'start-step',
      'step-finish',
      'finish',
    ]);
    const written = chunks.filter((c) => c.type.startsWith('data-'));
    expect(written.map(({ offset: _o, ...c }) => c)).toEqual([
      { type: 'data-progress', id: 'progress', data: { topic: 'tides', percent: 50 } },
      { type: 'data-progress', id: 'progress', data: { topic: 'tides', percent: 100 } },
      { type: 'data-note', data: 'notes on tides' },
      { type: 'data-ping', data: { at: 'end' }, transient: true },
    ]);
    expect(chunks.find((c) => c.type === 'tool-result')).toMatchObject({ output: 'report on tides' });
  });

  it('writes to the stream of a run that does not stream its model (generate), where a reader finds it', async () => {
    const script: Script = [
      { toolCalls: [{ toolName: 'report', args: { topic: 'tides' } }] },
      { toolCalls: [{ toolName: 'hold', args: {} }] },
      { text: 'done' },
    ];
    const paused = await w.client.generate('writer-agent', 'go', { model: 'scripted', script });
    expect(paused.finishReason).toBe('suspended');
    // The run waits, so its stream is there to read.
    const chunks = await collect(w.client.subscribe(paused.runId, { fromOffset: 0 }));
    expect(events(chunks)).toEqual([
      'start',
      'start-step',
      'tool-call',
      'data-progress',
      'data-progress',
      'data-note',
      'data-ping',
      'tool-result',
      'step-finish',
      'start-step',
      'tool-call',
      'tool-call-approval',
      'finish',
    ]);
    await w.client.declineToolCallGenerate({ runId: paused.runId });
  });

  it('refuses a chunk over the limits, of a reserved or no data type, or not JSON, with a StreamWriteError the tool catches; the run goes on', async () => {
    const script: Script = [{ toolCalls: [{ toolName: 'overWrite', args: {} }] }, { text: 'done' }];
    const chunks = await collect(await w.client.stream('writer-agent', 'go', { model: 'scripted', script }));
    const output = chunks.find((c) => c.type === 'tool-result')!;
    const refused = (reason: string, message: RegExp) => ({
      name: 'StreamWriteError',
      reason,
      message: expect.stringMatching(message),
    });
    expect(output).toMatchObject({
      output: {
        tooLarge: refused(
          'too-large',
          /^context\.writer\.write of tool "overWrite" refused a chunk: its data is 18 KiB of JSON, over the 16 KiB a chunk may hold$/,
        ),
        reserved: refused('invalid', /"data-tool-suspended" is reserved for the runner's own parts/),
        notData: refused('invalid', /its type must be "data-<name>", not "text-delta"/),
        unknownField: refused('invalid', /unknown field\(s\) "extra"/),
        notJson: refused('invalid', /its data is not JSON data: .*BigInt/),
        fine: 'written',
        tooMany: refused('too-many', /one execution may write 200 chunks/),
      },
    });
    // What was refused is not in the stream; what was taken is, all 200 of it.
    const written = chunks.filter((c) => c.type.startsWith('data-'));
    expect(written.filter((c) => c.type === 'data-fine')).toHaveLength(1);
    expect(written.filter((c) => c.type === 'data-count')).toHaveLength(199);
    expect(written.map((c) => c.type)).not.toContain('data-tool-suspended');
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('fails the call at once, without retries, when the tool does not catch the refusal: a tool error the model sees', async () => {
    const script: Script = [{ toolCalls: [{ toolName: 'carelessWrite', args: {} }] }, { text: 'done' }];
    const result = await w.client.generate('writer-agent', 'go', { model: 'scripted', script });
    expect(result.finishReason).toBe('stop');
    expect(result.steps[0]!.toolResults).toEqual([
      expect.objectContaining({
        toolName: 'carelessWrite',
        isError: true,
        error: expect.stringMatching(
          /^Tool "carelessWrite" failed: context\.writer\.write .* refused a chunk: its data is 18 KiB/,
        ),
      }),
    ]);
  });
});

describe("sub-agents' progress", () => {
  const delegate = (tool: string, sub: RunOptions): RunOptions => ({
    model: 'scripted',
    script: [{ toolCalls: [{ toolName: tool, args: { prompt: 'write about tides' } }] }, { text: 'supervised' }],
    subAgentOptions: { [tool.replace(/^agent-/, '')]: sub },
  });

  it("streams a sub-agent's text, tool events and writes as data-agent-progress, tagged with it, inside the delegation", async () => {
    const stream = await w.client.stream(
      'writer-supervisor',
      'go',
      delegate('agent-writer', { model: 'scripted', script: reportScript }),
    );
    const chunks = await collect(stream);
    expect(events(chunks).filter((t) => t !== 'data-agent-progress')).toEqual([
      'start',
      'start-step',
      'tool-call',
      'tool-result',
      'step-finish',
      'start-step',
      'step-finish',
      'finish',
    ]);
    // Every progress chunk comes between the delegation's call and its result.
    const at = (type: string) => chunks.findIndex((c) => c.type === type);
    const progressAt = chunks.flatMap((c, i) => (c.type === 'data-agent-progress' ? [i] : []));
    expect(progressAt.length).toBeGreaterThan(0);
    expect(Math.min(...progressAt)).toBeGreaterThan(at('tool-call'));
    expect(Math.max(...progressAt)).toBeLessThan(at('tool-result'));

    const progress = progressOf(chunks);
    const childRunId = `${stream.runId}::call-0-0`;
    for (const p of progress)
      expect(p).toMatchObject({ agentId: 'writer-agent', runId: childRunId, toolCallId: 'call-0-0' });
    // In the order the sub-agent did it: text, its call, what the tool wrote, the result, the next step's text.
    const kinds = progress
      .map((p) => p.event.type)
      .filter((t, i, all) => !(t === 'text-delta' && all[i - 1] === 'text-delta'));
    expect(kinds).toEqual(['text-delta', 'tool-call', 'data', 'data', 'data', 'data', 'tool-result', 'text-delta']);
    const text = progress.map((p) => (p.event.type === 'text-delta' ? p.event.delta : '|')).join('');
    expect(text).toMatch(/^Let me report\.\|+Tides are done\.$/);
    expect(progress.map((p) => p.event).filter((e) => e.type !== 'text-delta')).toEqual([
      { type: 'tool-call', toolCallId: 'call-0-0', toolName: 'report', args: { topic: 'tides' } },
      {
        type: 'data',
        toolCallId: 'call-0-0',
        toolName: 'report',
        chunk: { type: 'data-progress', id: 'progress', data: { topic: 'tides', percent: 50 } },
      },
      {
        type: 'data',
        toolCallId: 'call-0-0',
        toolName: 'report',
        chunk: { type: 'data-progress', id: 'progress', data: { topic: 'tides', percent: 100 } },
      },
      {
        type: 'data',
        toolCallId: 'call-0-0',
        toolName: 'report',
        chunk: { type: 'data-note', data: 'notes on tides' },
      },
      {
        type: 'data',
        toolCallId: 'call-0-0',
        toolName: 'report',
        chunk: { type: 'data-ping', data: { at: 'end' }, transient: true },
      },
      { type: 'tool-result', toolCallId: 'call-0-0', toolName: 'report', output: 'report on tides' },
    ]);
  });

  it("keeps a sub-agent's progress in the segments a reader reads when the supervisor pauses for its approval", async () => {
    const sub = { model: 'scripted', script: [{ toolCalls: [{ toolName: 'hold', args: {} }] }, { text: 'held it' }] };
    const stream = await w.client.stream('writer-supervisor', 'go', delegate('agent-writer', sub));
    const first = await collect(stream);
    expect(first.at(-1)).toMatchObject({ type: 'finish', finishReason: 'suspended' });
    const approve = { runId: stream.runId, toolCallId: 'call-0-0/call-0-0' };
    const second = await collect(await w.client.approveToolCall(approve));
    expect(second[0]).toMatchObject({ type: 'start', resumed: true });
    // The call's event is in the paused segment, or, where its signal came after the pause, opens the next.
    const kinds = progressOf([...first, ...second]).map((p) => p.event.type);
    expect(kinds.filter((t, i) => !(t === 'text-delta' && kinds[i - 1] === 'text-delta'))).toEqual([
      'tool-call',
      'tool-result',
      'text-delta',
    ]);
    expect(second.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('streams the progress of a sub-agent two levels down, under the qualified id of the delegations', async () => {
    const options = delegate('agent-mid', {
      model: 'scripted',
      script: [{ toolCalls: [{ toolName: 'agent-writer', args: { prompt: 'tides' } }] }, { text: 'mid done' }],
      subAgentOptions: { writer: { model: 'scripted', script: reportScript } },
    });
    const stream = await w.client.stream('writer-supervisor', 'go', options);
    const progress = progressOf(await collect(stream));
    const mid = progress.filter((p) => p.agentId === 'writer-mid');
    const writer = progress.filter((p) => p.agentId === 'writer-agent');
    expect(mid.map((p) => p.event.type)).toEqual(['tool-call', 'tool-result', 'text-delta']);
    expect(mid[0]).toMatchObject({
      runId: `${stream.runId}::call-0-0`,
      toolCallId: 'call-0-0',
      event: { toolName: 'agent-writer' },
    });
    expect(writer.length).toBeGreaterThan(0);
    for (const p of writer)
      expect(p).toMatchObject({ runId: `${stream.runId}::call-0-0::call-0-0`, toolCallId: 'call-0-0/call-0-0' });
    expect(writer.map((p) => p.event.type)).toContain('tool-result');
  });

  it("keeps a chatty sub-agent's progress within its budget: text cut per step, the cut said once a step", async () => {
    const long = `${'x'.repeat(399)} `.repeat(100); // 40 KB of text a step, over what a step may send
    const sub = {
      model: 'scripted',
      script: [
        { text: long, toolCalls: [{ toolName: 'report', args: { topic: 'a' } }] },
        { text: long, toolCalls: [{ toolName: 'report', args: { topic: 'b' } }] },
        { text: long },
      ],
    } satisfies RunOptions;
    const stream = await w.client.stream('writer-supervisor', 'go', delegate('agent-writer', sub));
    const chunks = await collect(stream);
    const bytes = progressOf(chunks).reduce(
      (n, data) => n + Buffer.byteLength(JSON.stringify({ type: 'data-agent-progress', data })),
      0,
    );
    expect(bytes).toBeLessThanOrEqual(MAX_PROGRESS_BYTES);
    const perStep = progressOf(chunks).filter((p) => p.event.type === 'text-delta');
    const textBytes = perStep.reduce((n, p) => n + (p.event.type === 'text-delta' ? p.event.delta.length : 0), 0);
    expect(textBytes).toBeLessThanOrEqual(3 * MAX_PROGRESS_SLICE_BYTES);
    expect(progressOf(chunks).filter((p) => p.event.type === 'truncated')).toHaveLength(3);
    // What the sub-agent answered is whole: its result, not its progress, is what the supervisor gets.
    const result = chunks.find((c) => c.type === 'tool-result') as Extract<RunStreamChunk, { type: 'tool-result' }>;
    expect((result.output as { text: string }).text).toBe(long);
    // The tools' events still come: the cut is of the text.
    expect(progressOf(chunks).filter((p) => p.event.type === 'tool-result')).toHaveLength(2);
  });

  it('adds no progress to a supervisor run that does not stream (generate)', async () => {
    const result = await w.client.generate(
      'writer-supervisor',
      'go',
      delegate('agent-writer', { model: 'scripted', script: reportScript }),
    );
    expect(result.text).toBe('supervised');
    const chunks = await collect(w.client.subscribe(result.runId, { fromOffset: 0 }));
    expect(chunks.filter((c) => c.type === 'data-agent-progress')).toEqual([]);
  });
});

describe('the UI message stream', () => {
  /** Reads an SSE response as useChat does: the assistant message as it ends, and the raw chunks. */
  async function readMessage(res: Response): Promise<{ message: UIMessage; chunks: UIMessageChunk[] }> {
    expect(res.status).toBe(200);
    const chunks: UIMessageChunk[] = [];
    const stream = parseJsonEventStream({ stream: res.body!, schema: uiMessageChunkSchema }).pipeThrough(
      new TransformStream({
        transform(result, controller) {
          if (!result.success) throw result.error;
          // The AI SDK builds its parts from the chunks it is given: keep them as they came.
          chunks.push(structuredClone(result.value));
          controller.enqueue(result.value);
        },
      }),
    );
    let last: UIMessage | undefined;
    for await (const m of readUIMessageStream({ stream })) last = m;
    return { message: structuredClone(last!), chunks };
  }
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('shows what a tool writes as data parts: one per id, transient ones only as chunks', async () => {
    const { message, chunks } = await readMessage(
      await post('/agents/writer-agent/stream', { prompt: 'go', options: { model: 'scripted', script: reportScript } }),
    );
    expect(chunks.filter((c) => c.type.startsWith('data-'))).toEqual([
      { type: 'data-progress', id: 'progress', data: { topic: 'tides', percent: 50 } },
      { type: 'data-progress', id: 'progress', data: { topic: 'tides', percent: 100 } },
      { type: 'data-note', data: 'notes on tides' },
      { type: 'data-ping', data: { at: 'end' }, transient: true },
    ]);
    const parts = message.parts.map((p) => p.type);
    expect(parts).toEqual(['step-start', 'text', 'tool-report', 'data-progress', 'data-note', 'step-start', 'text']);
    expect(message.parts.find((p) => p.type === 'data-progress')).toEqual({
      type: 'data-progress',
      id: 'progress',
      data: { topic: 'tides', percent: 100 },
    });
  });

  it("shows a sub-agent's progress as data-agent-progress parts", async () => {
    const options = delegate2('agent-writer', reportScript);
    const { message } = await readMessage(await post('/agents/writer-supervisor/stream', { prompt: 'go', options }));
    const progress = message.parts.filter((p) => p.type === 'data-agent-progress') as Array<{ data: AgentProgress }>;
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) expect(p.data).toMatchObject({ agentId: 'writer-agent', toolCallId: 'call-0-0' });
    expect(progress.map((p) => p.data.event.type)).toContain('tool-result');
  });
});

function delegate2(tool: string, script: Script): RunOptions {
  return {
    model: 'scripted',
    script: [{ toolCalls: [{ toolName: tool, args: { prompt: 'write about tides' } }] }, { text: 'supervised' }],
    subAgentOptions: { [tool.replace(/^agent-/, '')]: { model: 'scripted', script } },
  };
}
