/**
 * Transforms: the stream (and so every UI) shows what `transform.display` makes of a call, the
 * stored transcript (and so the model) keeps what `transform.transcript` makes of it, and the
 * application's result keeps the raw values. A transform that throws hides its payload.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JsonValue, RunStreamChunk, Script } from '../../src/index.js';
import { transformAgent } from '../fixtures/transform-agents.js';
import { collect, historyEventTypes, startWorker, withoutRandomIds, type TestWorker } from '../helpers.js';

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([transformAgent]);
});
afterAll(async () => {
  await w?.stop();
});

const calling = (toolName: string, args: JsonValue): Script => [{ toolCalls: [{ toolName, args }] }, { text: 'Done.' }];
const stream = (script: Script) => w.client.stream('transform-agent', 'go', { model: 'scripted', script });
const ofType = <T extends RunStreamChunk['type']>(chunks: RunStreamChunk[], type: T) =>
  chunks.filter((c): c is Extract<RunStreamChunk, { type: T }> => c.type === type);

it('streams the redacted output and keeps it in the transcript, while the result keeps the raw SSN (the page example)', async () => {
  const s = await stream(calling('lookupCustomer', { customerId: 'c-1' }));
  const chunks = await collect(s);
  const result = await w.client.next(s.runId);

  expect(JSON.stringify(chunks)).not.toContain('123-45-6789');
  expect(ofType(chunks, 'tool-result')[0]!.output).toEqual({ ssn: '***-**-****' });
  expect(JSON.stringify(result.messages)).not.toContain('123-45-6789');
  expect(result.toolResults[0]).toMatchObject({ isError: false, output: { ssn: '123-45-6789' } });
});

it('shows a transformed input everywhere the stream carries it, streams no raw input deltas, and approves by the raw fingerprint', async () => {
  const s = await stream(calling('openVault', { vault: 'main', password: 'hunter2' }));
  const first = await collect(s);
  expect(JSON.stringify(first)).not.toContain('hunter2');
  expect(ofType(first, 'tool-input-delta')).toEqual([]);
  expect(ofType(first, 'tool-call')[0]!.args).toEqual({ vault: 'main', password: '[redacted]' });
  expect(ofType(first, 'tool-call-approval')[0]!.args).toEqual({ vault: 'main', password: '[ask the owner]' });
  expect(ofType(first, 'finish')[0]!.pendingToolCalls[0]!.args).toEqual({ vault: 'main', password: '[ask the owner]' });

  // The approver's view (the run's state) has the raw call, and its fingerprint binds the approval to it.
  const [pending] = (await w.client.getRun(s.runId)).pendingToolCalls;
  expect(pending!.args).toEqual({ vault: 'main', password: 'hunter2' });
  const second = await collect(
    await w.client.approveToolCall({
      runId: s.runId,
      toolCallId: pending!.toolCallId,
      fingerprint: pending!.fingerprint,
    }),
  );
  expect(ofType(second, 'tool-result')[0]!.output).toBe('opened main');
  const result = await w.client.next(s.runId);
  expect(JSON.stringify(result.messages)).not.toContain('hunter2');
  expect(result.toolCalls[0]!.args).toEqual({ vault: 'main', password: 'hunter2' });
});

it('streams input deltas through the tool input-delta transform', async () => {
  const chunks = await collect(await stream(calling('shout', { words: 'a secret plan' })));
  const deltas = ofType(chunks, 'tool-input-delta').map((c) => c.delta);
  expect(deltas.join('')).toContain('a ****** plan');
  expect(JSON.stringify(deltas)).not.toContain('secret');
});

it('hides a payload whose display transform throws, rather than leak it', async () => {
  const s = await stream(calling('leaky', {}));
  const chunks = await collect(s);
  expect(JSON.stringify(chunks)).not.toContain('tok_live');
  expect(ofType(chunks, 'tool-result')[0]!.output).toBe('[hidden: its transform failed]');
  const result = await w.client.next(s.runId);
  expect(result.toolResults[0]).toMatchObject({ output: { token: 'tok_live_abc123' } });
  // The agent's transcript transform still applies to what the model keeps.
  expect(JSON.stringify(result.messages)).toContain('tok_live_abc***');
  expect(await historyEventTypes(w.client, s.runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
});

it('shows a transformed suspend payload and resume data', async () => {
  const s = await stream(calling('unlock', { door: 'front' }));
  const first = await collect(s);
  expect(withoutRandomIds(first)).not.toContain('4242');
  expect(ofType(first, 'tool-call-suspended')[0]!.suspendPayload).toEqual({ door: 'front', hint: '[hidden]' });
  const paused = await w.client.next(s.runId);
  expect(paused.suspendPayload).toMatchObject({ payload: { hint: 'the code is 4242' } });

  const second = await collect(await w.client.resumeStream({ code: '1234' }, { runId: s.runId }));
  expect(withoutRandomIds(second)).not.toContain('1234');
  expect(ofType(second, 'tool-call-resumed')[0]).toMatchObject({ toolName: 'unlock', resumeData: { code: '****' } });
  expect(ofType(second, 'tool-result')[0]!.output).toBe('unlocked front');
});

it('masks an error in the stream and in the transcript, and keeps it whole in the result', async () => {
  const s = await stream(calling('charge', {}));
  const chunks = await collect(s);
  const result = await w.client.next(s.runId);
  expect(withoutRandomIds(chunks)).not.toContain('4111');
  expect(ofType(chunks, 'tool-error')[0]!.error).toContain('card ****-****-****-**** declined');
  expect(withoutRandomIds(result.messages)).not.toContain('4111');
  expect(result.toolResults[0]).toMatchObject({ isError: true, error: expect.stringContaining('4111-1111-1111-1111') });
});

it("shapes a client tool's result with toModelOutput and the agent's transforms", async () => {
  const s = await stream(calling('pickCard', {}));
  await collect(s);
  const after = await collect(await w.client.submitToolResult({ runId: s.runId, result: { card: '4111 1111' } }));
  expect(ofType(after, 'tool-result')[0]!.output).toEqual({ card: '**** ****' });
  const result = await w.client.next(s.runId);
  const toolMessage = result.messages.find((m) => m.role === 'tool') as unknown as {
    content: Array<{ output: unknown }>;
  };
  expect(toolMessage.content[0]!.output).toEqual({ type: 'text', value: 'the user picked {"card":"**** ****"}' });
  expect(result.toolResults[0]).toMatchObject({ output: { card: '4111 1111' } });
});

it("applies the agent's transforms to a client tool the run brings along (clientTools)", async () => {
  const s = await w.client.stream('transform-agent', 'go', {
    model: 'scripted',
    script: calling('card_form', {}),
    clientTools: { card_form: { inputSchema: { type: 'object' } } },
  });
  await collect(s);
  const after = await collect(await w.client.submitToolResult({ runId: s.runId, result: { card: '4111 1111' } }));
  expect(ofType(after, 'tool-result')[0]!.output).toEqual({ card: '**** ****' });
  const result = await w.client.next(s.runId);
  expect(withoutRandomIds(result.messages)).not.toContain('4111');
  expect(result.toolResults[0]).toMatchObject({ toolName: 'card_form', output: { card: '4111 1111' } });
});
