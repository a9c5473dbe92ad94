import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool, defineAgent, NotAllowedError, type Script, type WebhookPayload } from '../../src/index.js';
import { AgentClient, verifyWebhook, WebhookVerificationError } from '../../src/client/index.js';
import { historyEventTypes, startWorker, temporalAddress, waitFor, type TestWorker } from '../helpers.js';

/** Executions of the tools below: a call that expired must never be among them. */
const refunds: string[] = [];

const refundTool = createTool({
  id: 'refund',
  description: 'Refunds an order',
  inputSchema: z.object({ order: z.string() }),
  requireApproval: true,
  approvalDeadline: { after: '3s' },
  execute: ({ order }, ctx) => {
    refunds.push(`${ctx.runId}:${order}`);
    return `refunded ${order}`;
  },
});

const wireTool = createTool({
  id: 'wire',
  description: 'Wires money',
  inputSchema: z.object({ amount: z.number() }),
  requireApproval: true,
  approvalDeadline: { after: '2s', escalate: { after: '1h', decide: ['group:leads'] } },
  execute: ({ amount }, ctx) => {
    refunds.push(`${ctx.runId}:wire ${amount}`);
    return `wired ${amount}`;
  },
});

const payoutTool = createTool({
  id: 'payout',
  description: 'Pays out, escalating soon and expiring soon after',
  inputSchema: z.object({ amount: z.number() }),
  requireApproval: true,
  approvalDeadline: { after: '2s', escalate: { after: '2s', decide: ['group:leads'] } },
  execute: ({ amount }, ctx) => {
    refunds.push(`${ctx.runId}:payout ${amount}`);
    return `paid ${amount}`;
  },
});

const noticeTool = createTool({
  id: 'notice',
  description: 'Needs approval, no deadline',
  inputSchema: z.object({ what: z.string() }),
  requireApproval: true,
  execute: ({ what }) => `done ${what}`,
});

const deadlineAgent = defineAgent({
  id: 'deadline-agent',
  name: 'Deadlines',
  model: 'scripted',
  tools: { refund: refundTool, wire: wireTool, payout: payoutTool, notice: noticeTool },
  access: { decide: ['role:approver'] },
});

const SECRET = 'test-webhook-secret-0123456789';

/** A local receiver: answers 503 to the first request (to show the retry), then 200; keeps raw bodies. */
interface Received {
  body: string;
  headers: IncomingHttpHeaders;
}
let server: Server;
const received: Received[] = [];
let refusedOnce = false;
let webhookUrl = '';

let w: TestWorker;
/** A client of its own, which stays connected while the worker is stopped. */
let observer: AgentClient;
const taskQueue = `deadlines-${randomUUID()}`;
const settings = () => ({ url: webhookUrl, secret: SECRET, inboxUrl: 'http://inbox.test/inbox' });

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!refusedOnce) {
        refusedOnce = true;
        res.writeHead(503).end();
        return;
      }
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  w = await startWorker([deadlineAgent], { taskQueue, notifications: settings() });
  observer = await AgentClient.connect({ address: temporalAddress(), namespace: 'default', taskQueue });
});
afterAll(async () => {
  await w?.stop();
  await observer?.close();
  await new Promise((resolve) => server?.close(resolve));
});

const approver = { id: 'ann', roles: ['approver'] };

/** The notifications of one run, verified with the receiver's helper. */
function noticesOf(runId: string): WebhookPayload[] {
  return received
    .map((r) => verifyWebhook(SECRET, r.body, r.headers))
    .filter((p) => p.runId === runId)
    .sort((a, b) => a.at.localeCompare(b.at));
}

describe('approval deadlines', () => {
  it('expires a call whose deadline passed while no worker ran: recorded as expired, the model told, nothing run', async () => {
    const script: Script = [{ toolCalls: [{ toolName: 'refund', args: { order: 'o-1' } }] }, { text: 'Understood.' }];
    const paused = await w.client.generate('deadline-agent', 'refund o-1', { model: 'scripted', script });
    expect(paused.finishReason).toBe('suspended');
    const call = paused.pendingToolCalls[0]!;
    expect(Date.parse(call.expiresAt!) - Date.parse(call.askedAt)).toBe(3000);

    await w.stop();
    // The durable timer fires on the server with no worker up; the run acts on it only once one returns.
    await waitFor('the deadline timer to fire', async () =>
      (await historyEventTypes(observer, paused.runId)).includes('EVENT_TYPE_TIMER_FIRED') ? true : undefined,
    );
    const info = await observer.getRun(paused.runId);
    expect(info.status).toBe('suspended');
    expect(info.decisions).toEqual([]);

    w = await startWorker([deadlineAgent], { taskQueue, notifications: settings() });
    const done = await w.client.result(paused.runId);
    expect(done.finishReason).toBe('stop');
    expect(done.decisions.map((d) => [d.kind, d.toolCallId, d.accepted])).toEqual([['expire', 'call-0-0', true]]);
    expect(done.decisions[0]!.reason).toContain(`nobody decided between ${call.askedAt} and ${call.expiresAt}`);
    const outcome = done.toolResults[0]!;
    if (!outcome.isError) throw new Error(`the call ran: ${JSON.stringify(outcome)}`);
    expect(outcome.toolCallId).toBe('call-0-0');
    expect(outcome.declined).toBeUndefined();
    expect(outcome.error).toContain('was not approved in time');
    // The model read it: the tool message of the conversation says it expired.
    const told = JSON.stringify(done.messages.filter((m) => m.role === 'tool'));
    expect(told).toContain('expired at');
    expect(refunds.filter((r) => r.startsWith(paused.runId))).toEqual([]);
    // A late approval is refused: it expired.
    await expect(
      w.client.approveToolCallGenerate({ runId: paused.runId, toolCallId: 'call-0-0', principal: approver }),
    ).rejects.toThrow();

    const notices = await waitFor('the expiry notification', async () => {
      const n = noticesOf(paused.runId);
      return n.some((p) => p.type === 'expired') ? n : undefined;
    });
    expect(notices.map((n) => n.type)).toEqual(['waiting', 'expired']);
    expect(notices[1]).toMatchObject({ decision: { kind: 'expire' }, expiresAt: call.expiresAt });
  });

  // The probe: with the worker down, a call's deadline passed, then an approval arrived; when a worker
  // came back, both reached the run in one activation (the escalation's timer had fired, the expiry's was
  // not even started), the decision was applied first, and the tool ran (4 of 4 times).
  it('refuses an approval that arrives after the deadline passed, however the events reach the run', async () => {
    const script: Script = [{ toolCalls: [{ toolName: 'payout', args: { amount: 5 } }] }, { text: 'Noted.' }];
    const paused = await w.client.generate('deadline-agent', 'pay 5', { model: 'scripted', script });
    const call = paused.pendingToolCalls[0]!;
    await w.stop();
    await waitFor('the escalation timer to fire', async () =>
      (await historyEventTypes(observer, paused.runId)).includes('EVENT_TYPE_TIMER_FIRED') ? true : undefined,
    );
    await waitFor('the expiry to pass', async () => (Date.now() > Date.parse(call.expiresAt!) ? true : undefined));
    const lead = { id: 'lee', groups: ['leads'] };
    // The client refuses at its edge: the call's deadline has passed.
    await expect(
      observer.sendDecision('approve', { runId: paused.runId, toolCallId: call.toolCallId, principal: approver }),
    ).rejects.toThrow(/expired at/);
    // A raw signal (anyone with signal rights) gets past the edge: the run must refuse it itself.
    await observer.temporal.workflow.getHandle(paused.runId).signal('approveToolCall', {
      decisionId: 'late-approval',
      toolCallId: call.toolCallId,
      fingerprint: call.fingerprint,
      principal: lead,
    });
    w = await startWorker([deadlineAgent], { taskQueue, notifications: settings() });
    const done = await w.client.result(paused.runId);
    expect(done.decisions.map((d) => [d.kind, d.accepted])).toEqual([
      ['escalate', true],
      ['expire', true],
    ]);
    const late = (await w.client.getRun(paused.runId)).refusals.recent.find((d) => d.decisionId === 'late-approval');
    expect(late?.refusal).toMatchObject({ type: 'AlreadyDecided' });
    expect(late?.refusal?.message).toContain('its deadline passed');
    expect(done.toolResults[0]).toMatchObject({
      isError: true,
      error: expect.stringContaining('not approved in time'),
    });
    expect(refunds.filter((r) => r.startsWith(paused.runId))).toEqual([]);
  });

  it('escalates: after the first period only the escalation group may decide', async () => {
    const script: Script = [{ toolCalls: [{ toolName: 'wire', args: { amount: 9 } }] }, { text: 'Wired.' }];
    const paused = await w.client.generate('deadline-agent', 'wire 9', { model: 'scripted', script });
    const waiting = paused.pendingToolCalls[0]!;
    expect(waiting.escalation).toMatchObject({ decide: ['group:leads'] });
    expect(waiting.decide).toEqual(['role:approver']);

    const escalated = await waitFor('the escalation', async () => {
      const info = await w.client.getRun(paused.runId);
      return info.pendingToolCalls[0]?.escalation?.escalated ? info : undefined;
    });
    expect(escalated.pendingToolCalls[0]!.decide).toEqual(['group:leads']);
    expect(escalated.decisions.map((d) => d.kind)).toEqual(['escalate']);

    // The first approvers may no longer decide; a lead may.
    await expect(w.client.approveToolCallGenerate({ runId: paused.runId, principal: approver })).rejects.toThrow(
      NotAllowedError,
    );
    const lead = { id: 'lee', groups: ['leads'] };
    const done = await w.client.approveToolCallGenerate({ runId: paused.runId, principal: lead });
    expect(done.finishReason).toBe('stop');
    // Ann was refused at the client's edge: the run records the escalation and the approval it took.
    expect(done.decisions.map((d) => [d.kind, d.principal?.id ?? null, d.accepted])).toEqual([
      ['escalate', null, true],
      ['approve', 'lee', true],
    ]);
    expect(refunds).toContain(`${paused.runId}:wire 9`);
    const notices = await waitFor('the decided notification', async () => {
      const n = noticesOf(paused.runId);
      return n.some((p) => p.type === 'decided') ? n : undefined;
    });
    expect(notices.map((n) => n.type)).toEqual(['waiting', 'escalated', 'decided']);
    expect(notices[1]!.decide).toEqual(['group:leads']);
    expect(notices[2]!.decision).toMatchObject({ kind: 'approve', principal: { id: 'lee' } });
  });
});

describe('webhook notifications', () => {
  it('are signed, retried, link to the inbox, and a tampered body is refused', async () => {
    const script: Script = [{ toolCalls: [{ toolName: 'notice', args: { what: 'x' } }] }, { text: 'Ok.' }];
    const paused = await w.client.generate('deadline-agent', 'notice', { model: 'scripted', script });
    expect(paused.pendingToolCalls[0]!.expiresAt).toBeUndefined();
    const waiting = await waitFor('the waiting notification', async () =>
      received.find((r) => r.body.includes(paused.runId)),
    );
    const payload = verifyWebhook(SECRET, waiting.body, waiting.headers);
    expect(payload).toMatchObject({
      type: 'waiting',
      runId: paused.runId,
      agentId: 'deadline-agent',
      toolCallId: 'call-0-0',
      toolName: 'notice',
      kind: 'approval',
      fingerprint: paused.pendingToolCalls[0]!.fingerprint,
      link: `http://inbox.test/inbox?run=${encodeURIComponent(paused.runId)}&call=call-0-0`,
    });
    expect(payload).not.toHaveProperty('args');
    expect(waiting.headers['x-durable-agents-event']).toBe('waiting');
    expect(refusedOnce).toBe(true);

    const tampered = waiting.body.replace('"notice"', '"wire"');
    expect(() => verifyWebhook(SECRET, tampered, waiting.headers)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook('not-the-secret-at-all', waiting.body, waiting.headers)).toThrow(
      /signature does not match/,
    );

    await w.client.declineToolCallGenerate({ runId: paused.runId, principal: approver, reason: 'no' });
    const decided = await waitFor('the decided notification', async () =>
      noticesOf(paused.runId).find((n) => n.type === 'decided'),
    );
    expect(decided.decision).toMatchObject({ kind: 'decline', principal: { id: 'ann' }, reason: 'no' });
  });
});
