/**
 * The approval inbox in a real browser (headless Chromium, driven by playwright-core): a worker and the
 * HTTP server with bearer tokens; Bob signs in with his token and sees the calls that wait in his tenant
 * appear, approves, declines with a reason, resumes through forms generated from resume schemas (a
 * refused answer shows the server's reason in the form), follows the webhook's link, and sees a call
 * decided elsewhere leave. A tool argument that is HTML renders as text; another tenant sees nothing.
 *
 * `INBOX_SCREENSHOT=docs/inbox.png npx vitest run test/e2e/inbox.test.ts` also saves the README's picture.
 */
import type { ServerType } from '@hono/node-server';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { receiptLine } from '../../src/approvals/receipts.js';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { askUserTool, createTool, defineAgent, type JsonValue, type RunResult, type Script } from '../../src/index.js';
import { bearerTokens, DEFAULT_REQUEST_OPTIONS, startServer } from '../../src/server/index.js';
import { startWorker, type TestWorker } from '../helpers.js';
import { chromiumPath } from './chromium.js';

const transferTool = createTool({
  id: 'inbox-transfer',
  description: 'Sends money',
  inputSchema: z.object({ to: z.string(), amount: z.number(), account: z.string(), note: z.string().optional() }),
  requireApproval: true,
  execute: async ({ to, amount }) => ({ sent: amount, to }),
  // The stream, and so the inbox, never shows the account number.
  transform: { display: { input: (args) => ({ ...(args as object), account: '****' }) } },
});

const orderTool = createTool({
  id: 'inbox-order',
  description: 'Orders an item once the user said how',
  inputSchema: z.object({ item: z.string() }),
  suspendSchema: z.object({ question: z.string() }),
  resumeSchema: z.object({
    quantity: z.number().int().min(1).max(10),
    colour: z.enum(['red', 'green']),
    gift: z.boolean(),
    extras: z.array(z.enum(['wrap', 'card'])),
  }),
  execute: async ({ item }, ctx) =>
    ctx.resumeData ? { item, ...ctx.resumeData } : ctx.suspend({ question: `How should ${item} be ordered?` }),
});

// Fields named like members of a form element (form.addEventListener, form.submit, form.elements).
const settingsTool = createTool({
  id: 'inbox-settings',
  description: 'Applies settings once the user chose them',
  inputSchema: z.object({ item: z.string() }),
  suspendSchema: z.object({ question: z.string() }),
  resumeSchema: z.object({ addEventListener: z.string(), submit: z.boolean(), elements: z.number() }),
  execute: async ({ item }, ctx) =>
    ctx.resumeData ? { item, ...ctx.resumeData } : ctx.suspend({ question: `How should ${item} be set?` }),
});

// A wire transfer needs two approvers (the agent's policy below).
const wireTool = createTool({
  id: 'inbox-wire',
  description: 'Wires money abroad',
  inputSchema: z.object({ to: z.string(), amount: z.number() }),
  requireApproval: true,
  execute: async ({ to, amount }) => ({ wired: amount, to }),
});

// A refund shows what it would leave in the till; the till changes under one call in the test below.
const till = { cash: 300 };
const refundTool = createTool({
  id: 'inbox-refund',
  description: 'Refunds from the till',
  inputSchema: z.object({ amount: z.number() }),
  requireApproval: true,
  preview: ({ amount }) => ({ till: till.cash, after: till.cash - amount }),
  execute: async ({ amount }) => ({ refunded: amount }),
});

// Payouts may be allowed in advance: a standing grant covers the small ones (the agent's policy below).
const payouts: number[] = [];
const payoutTool = createTool({
  id: 'inbox-payout',
  description: 'Pays a supplier',
  inputSchema: z.object({ amount: z.number() }),
  requireApproval: true,
  execute: async ({ amount }) => {
    payouts.push(amount);
    return { paid: amount };
  },
});

const agentId = `inbox-agent-${randomUUID().slice(0, 8)}`;
const inboxAgent = defineAgent({
  id: agentId,
  name: 'Inbox',
  instructions: 'You send money and ask.',
  model: 'scripted',
  tools: {
    transfer: transferTool,
    ask_user: askUserTool,
    order: orderTool,
    settings: settingsTool,
    wire: wireTool,
    refund: refundTool,
    payout: payoutTool,
  },
  access: { tools: { wire: { quorum: 2 } }, grants: { tools: ['payout'], maxHours: 12 } },
});

// Alice starts runs, Bob decides (an approval needs someone else than its starter), Carol is a second
// approver, Eve is another tenant.
const tenant = `inbox-tenant-${randomUUID().slice(0, 8)}`;
const ALICE = `alice-${randomUUID()}`;
const BOB = `bob-${randomUUID()}`;
const EVE = `eve-${randomUUID()}`;
const CAROL = `carol-${randomUUID()}`;
// A tenant of its own with more runs waiting than the inbox reads at once.
const PAGER_ALICE = `pager-alice-${randomUUID()}`;
const PAGER_BOB = `pager-bob-${randomUUID()}`;
const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';

let w: TestWorker;
let server: ServerType;
let base: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const executablePath = chromiumPath();
  w = await startWorker([inboxAgent]);
  server = await startServer(w.client, {
    port: 0,
    authenticate: bearerTokens({
      [ALICE]: { id: 'alice', tenant },
      [BOB]: { id: 'bob', name: 'Bob', tenant },
      [EVE]: { id: 'eve', tenant: `${tenant}-other` },
      [CAROL]: { id: 'carol', tenant },
      [PAGER_ALICE]: { id: 'alice', tenant: `${tenant}-pages` },
      [PAGER_BOB]: { id: 'bob', tenant: `${tenant}-pages` },
    }),
    agents: [inboxAgent],
    requestOptions: [...DEFAULT_REQUEST_OPTIONS, 'script'],
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await w?.stop();
});

/** Alice starts a run over HTTP that calls one tool; it returns once the run waits. */
async function startRun(toolName: string, args: Record<string, JsonValue>, starter = ALICE): Promise<RunResult> {
  const script: Script = [{ toolCalls: [{ toolName, args }] }, { text: 'Done.' }];
  const res = await fetch(`${base}/agents/${agentId}/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${starter}` },
    body: JSON.stringify({ prompt: `please ${toolName}`, options: { script } }),
  });
  expect(res.status).toBe(200);
  const result = (await res.json()) as RunResult;
  expect(result.finishReason).toBe('suspended');
  return result;
}

async function signIn(p: Page, token: string): Promise<void> {
  await p.goto(`${base}/inbox`);
  await p.locator('#token').fill(token);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await eventually(() => p.locator('#who').textContent()).toMatch(/Signed in as/);
}

/** What the run's tool call returned, as the run's result says. */
async function outputOf(runId: string): Promise<unknown> {
  const call = (await w.client.result(runId)).toolResults[0];
  return call?.isError === false ? call.output : call;
}

/** A condition the page meets within a few polls (the page polls every 1.5 s). */
const eventually = <T>(check: () => Promise<T>) => expect.poll(check, { timeout: 20_000, interval: 100 });

const entryOf = (p: Page, runId: string): Locator => p.locator(`#calls li.entry[data-run="${runId}"]`);
const decidedOf = (p: Page, runId: string): Locator => p.locator(`#decided li[data-run="${runId}"]`);

/** Waits until the page says the run it decided finished, and returns its trail as the page shows it. */
async function finishedTrail(runId: string): Promise<string> {
  // At once from the decision's stream; the run's own status says so once its stream grace is over.
  await eventually(() => decidedOf(page, runId).locator('.run-status').textContent()).toMatch(
    /the run finished \(stop\)|status completed/,
  );
  return (await decidedOf(page, runId).locator('.trail').textContent()) ?? '';
}

describe('the approval inbox', () => {
  let transfer: RunResult;
  let ask: RunResult;
  let order: RunResult;

  it('serves the page with a strict CSP, and its data only to a signed-in caller', async () => {
    const res = await fetch(`${base}/inbox`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect((await fetch(`${base}/inbox/calls`)).status).toBe(401);
    await signIn(page, BOB);
    await eventually(() => page.locator('#who').textContent()).toBe(`Signed in as Bob (bob), tenant ${tenant}`);
    // The token stays in the tab's session storage, never in the URL.
    expect(page.url()).toBe(`${base}/inbox`);
    expect(await page.evaluate(() => sessionStorage.getItem('durable-agents.inbox.token'))).toBe(BOB);
  });

  it('shows calls as they start waiting, newest first, HTML arguments as text, display transforms applied', async () => {
    transfer = await startRun('transfer', { to: 'Mallory', amount: 500, account: 'DE44-SECRET', note: XSS });
    await eventually(() => entryOf(page, transfer.runId).count()).toBe(1);
    ask = await startRun('ask_user', { question: 'Which colour?', options: ['red', 'green'] });
    order = await startRun('order', { item: 'a scarf' });
    await eventually(() => page.locator('#calls li.entry').count()).toBe(3);
    const runs = await page.locator('#calls li.entry').evaluateAll((nodes) => nodes.map((n) => n.dataset.run));
    expect(runs).toEqual([order.runId, ask.runId, transfer.runId]);

    const entry = entryOf(page, transfer.runId);
    const args = JSON.parse((await entry.locator('pre.args').textContent())!);
    expect(args).toEqual({ to: 'Mallory', amount: 500, account: '****', note: XSS });
    expect(await entry.locator('h4').first().textContent()).toBe('Arguments (as the agent displays them)');
    expect(await page.locator('#calls img, #calls script').count()).toBe(0);
    // Nothing but what the call holds: no stray text where an entry has no payload.
    expect(await entry.textContent()).not.toContain('null');
    expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.content()).not.toContain('DE44-SECRET');
    // The JSON list of waiting runs shows the call as the stream does, too.
    const listed = await fetch(`${base}/agents/${agentId}/suspended-runs`, {
      headers: { authorization: `Bearer ${BOB}` },
    });
    const listedText = await listed.text();
    expect(listedText).toContain('****');
    expect(listedText).not.toContain('DE44-SECRET');
    const fingerprint = transfer.pendingToolCalls![0]!.fingerprint;
    expect(await entry.locator('.fingerprint').textContent()).toBe(fingerprint);
    expect(await entry.locator('.path').textContent()).toBe('waits in this run');
    expect(await entry.locator('.waited').textContent()).toMatch(/^waiting for \d+ s \(since /);
    expect(await entry.locator('.meta').first().textContent()).toContain('started by alice');

    await page.locator('#filter-agent').selectOption(agentId);
    if (process.env.INBOX_SCREENSHOT) await page.screenshot({ path: process.env.INBOX_SCREENSHOT, fullPage: true });
  });

  it('shows the run conversation on demand', async () => {
    const entry = entryOf(page, transfer.runId);
    await entry.locator('.conversation-details summary').click();
    await eventually(() => entry.locator('.conversation').textContent()).toContain('tool call: transfer(');
    expect(await entry.locator('.conversation').textContent()).toContain('****');
    expect(await page.locator('#calls img').count()).toBe(0);
  });

  it('another tenant sees none of it', async () => {
    const eve = await browser.newPage();
    try {
      await signIn(eve, EVE);
      await eventually(() => eve.locator('#status').textContent()).toMatch(/^updated /);
      expect(await eve.locator('#calls li').count()).toBe(0);
      expect(await eve.locator('#empty').isVisible()).toBe(true);
      const auth = { headers: { authorization: `Bearer ${EVE}` } };
      const calls = (await (await fetch(`${base}/inbox/calls`, auth)).json()) as { calls: unknown[] };
      expect(calls.calls).toEqual([]);
      expect((await fetch(`${base}/runs/${transfer.runId}`, auth)).status).toBe(404);
    } finally {
      await eve.close();
    }
  });

  it('approves: the entry leaves, and the trail shows the approval', async () => {
    await entryOf(page, transfer.runId).getByRole('button', { name: 'Approve' }).click();
    await eventually(() => entryOf(page, transfer.runId).count()).toBe(0);
    expect(await finishedTrail(transfer.runId)).toMatch(/approve · transfer call-0-0 · by bob/);
    expect(await outputOf(transfer.runId)).toEqual({ sent: 500, to: 'Mallory' });
  });

  it("downloads the decided run's receipts, as agentctl audit export writes them", async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      decidedOf(page, transfer.runId).getByRole('button', { name: 'Download receipts' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${transfer.runId}.receipts.jsonl`);
    const text = await readFile((await download.path())!, 'utf8');
    const receipts = await w.client.receipts({ runId: transfer.runId });
    expect(text).toBe(receipts.map((r) => `${receiptLine(r)}\n`).join(''));
    expect(receipts).toMatchObject([{ seq: 0, kind: 'approve', principal: { id: 'bob' } }]);
  });

  it('shows how many approvers a call needs and who approved, and runs it after the second', async () => {
    const wire = await startRun('wire', { to: 'Zurich', amount: 9000 });
    await eventually(() => entryOf(page, wire.runId).count()).toBe(1);
    await expect
      .poll(() => entryOf(page, wire.runId).locator('.quorum').textContent(), { timeout: 20_000 })
      .toBe('needs 2 approvers: 0 of 2');
    await entryOf(page, wire.runId).getByRole('button', { name: 'Approve' }).click();
    // Bob's approval counted: the call waits on, and he may not approve it again.
    await expect
      .poll(() => entryOf(page, wire.runId).locator('.quorum').textContent(), { timeout: 20_000 })
      .toBe('needs 2 approvers: 1 of 2 (bob)');
    await eventually(() => entryOf(page, wire.runId).locator('.refusal').textContent()).toMatch(
      /You cannot approve this call: .*"bob" approved it already \(1 of 2 so far\)/,
    );
    expect(await entryOf(page, wire.runId).getByRole('button', { name: 'Approve' }).isVisible()).toBe(false);
    // He may still decline it.
    expect(await entryOf(page, wire.runId).getByRole('button', { name: 'Decline' }).isVisible()).toBe(true);
    expect((await w.client.getRun(wire.runId)).status).toBe('suspended');

    const carol = await browser.newPage();
    try {
      await signIn(carol, CAROL);
      await eventually(() => entryOf(carol, wire.runId).locator('.quorum').textContent()).toBe(
        'needs 2 approvers: 1 of 2 (bob)',
      );
      await entryOf(carol, wire.runId).getByRole('button', { name: 'Approve' }).click();
      await eventually(() => entryOf(carol, wire.runId).count()).toBe(0);
    } finally {
      await carol.close();
    }
    expect((await w.client.result(wire.runId)).toolResults[0]).toMatchObject({ output: { wired: 9000, to: 'Zurich' } });
    await eventually(() => entryOf(page, wire.runId).count()).toBe(0);
  });

  it('shows a preview, and where it changed after an approval, both, and runs on the one approved last', async () => {
    const refund = await startRun('refund', { amount: 100 });
    const entry = entryOf(page, refund.runId);
    await eventually(() => entry.locator('pre.preview').textContent()).toBe(
      JSON.stringify({ till: 300, after: 200 }, null, 2),
    );
    till.cash = 150;
    await entry.getByRole('button', { name: 'Approve' }).click();
    // Bob approved what he saw; the till changed, so the call waits again, showing both.
    await eventually(() => entry.locator('pre.preview.previous').textContent()).toBe(
      JSON.stringify({ till: 300, after: 200 }, null, 2),
    );
    expect(await entry.locator('pre.preview').nth(1).textContent()).toBe(
      JSON.stringify({ till: 150, after: 50 }, null, 2),
    );
    expect((await w.client.getRun(refund.runId)).status).toBe('suspended');
    await entry.getByRole('button', { name: 'Approve' }).click();
    await eventually(() => entry.count()).toBe(0);
    expect(await outputOf(refund.runId)).toEqual({ refunded: 100 });
  });

  it("approves, and allows calls like it: a grant runs the next small payout at once, in its creator's name", async () => {
    const first = await startRun('payout', { amount: 40 });
    const entry = entryOf(page, first.runId);
    await eventually(() => entry.count()).toBe(1);
    await entry.getByText('Approve, and allow calls like this').click();
    await entry.locator('[data-field="where"]').fill('amount<=50');
    await entry.locator('[data-field="scope"]').selectOption('resource');
    await entry.getByRole('button', { name: 'Approve and allow' }).click();
    await eventually(() => entry.count()).toBe(0);
    expect(await outputOf(first.runId)).toEqual({ paid: 40 });

    // The next small payout waits for nobody; a larger one does.
    const res = await fetch(`${base}/agents/${agentId}/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ALICE}` },
      body: JSON.stringify({
        prompt: 'please payout',
        options: { script: [{ toolCalls: [{ toolName: 'payout', args: { amount: 30 } }] }, { text: 'Done.' }] },
      }),
    });
    const granted = (await res.json()) as RunResult;
    expect(granted.finishReason).toBe('stop');
    expect(granted.decisions).toEqual([
      expect.objectContaining({
        kind: 'approve',
        principal: expect.objectContaining({ id: 'bob' }),
        grant: expect.any(Object),
      }),
    ]);
    expect(payouts).toEqual([40, 30]);

    // Over HTTP: Bob lists the grant he made; Eve, of another tenant, cannot revoke it; Bob revokes it.
    const as = (token: string) => ({ authorization: `Bearer ${token}` });
    const listed = await fetch(`${base}/agents/${agentId}/grants`, { headers: as(BOB) });
    const { grants } = (await listed.json()) as { grants: Array<{ grantId: string; uses: number; where: string[] }> };
    expect(grants).toMatchObject([{ uses: 1, where: ['amount<=50'] }]);
    const path = `${base}/agents/${agentId}/grants/${grants[0]!.grantId}?resourceId=${tenant}`;
    expect((await fetch(path, { method: 'DELETE', headers: as(EVE) })).status).toBe(400);
    const revoked = await fetch(path, { method: 'DELETE', headers: as(BOB) });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ revoked: { by: { id: 'bob' } } });
    const after = await startRun('payout', { amount: 20 });
    await eventually(() => entryOf(page, after.runId).count()).toBe(1);
    await entryOf(page, after.runId).locator('.decline-form button').click();
    const large = await startRun('payout', { amount: 80 });
    await eventually(() => entryOf(page, large.runId).count()).toBe(1);
    await entryOf(page, large.runId).locator('.decline-form button').click();
    await eventually(() => entryOf(page, large.runId).count()).toBe(0);
  });

  it('a resume form shows the server refusal, then sends a fitting answer', async () => {
    const entry = entryOf(page, ask.runId);
    const form = entry.locator('form.resume-form');
    await form.getByRole('button', { name: 'Resume' }).click();
    await expect
      .poll(() => form.locator('.error').textContent())
      .toMatch(
        /^InvalidResumeData: Refused for run ".*": resume data \{\} does not fit the resumeSchema of tool call call-0-0 \(ask_user\): answer: /,
      );
    expect(await entryOf(page, ask.runId).count()).toBe(1);
    await form.locator('select[data-field="answer"]').selectOption({ label: 'green' });
    await form.getByRole('button', { name: 'Resume' }).click();
    await eventually(() => entryOf(page, ask.runId).count()).toBe(0);
    expect(await finishedTrail(ask.runId)).toMatch(/resume · ask_user call-0-0 · by bob/);
    expect(await outputOf(ask.runId)).toEqual({ answer: 'green' });
  });

  it('generates fields for numbers, enums, booleans and lists of enums', async () => {
    const form = entryOf(page, order.runId).locator('form.resume-form');
    await form.locator('input[data-field="quantity"]').fill('50');
    await form.locator('select[data-field="colour"]').selectOption({ label: 'red' });
    await form.getByRole('button', { name: 'Resume' }).click();
    await eventually(() => form.locator('.error').textContent()).toMatch(/^InvalidResumeData: .*quantity: Too big/);
    await form.locator('input[data-field="quantity"]').fill('3');
    await form.locator('input[data-field="gift"]').check();
    await form.locator('input[data-field="extras"][value="card"]').check();
    await form.getByRole('button', { name: 'Resume' }).click();
    await eventually(() => entryOf(page, order.runId).count()).toBe(0);
    await finishedTrail(order.runId);
    expect(await outputOf(order.runId)).toEqual({
      item: 'a scarf',
      quantity: 3,
      colour: 'red',
      gift: true,
      extras: ['card'],
    });
  });

  it("sends a resume form whose fields are named like the form's own members", async () => {
    const run = await startRun('settings', { item: 'the printer' });
    const entry = entryOf(page, run.runId);
    await eventually(() => entry.count()).toBe(1);
    const form = entry.locator('form.resume-form');
    await form.getByLabel(/^addEventListener/).fill('on');
    await form.getByLabel(/^submit/).check();
    await form.getByLabel(/^elements/).fill('3');
    await form.getByRole('button', { name: 'Resume' }).click();
    await eventually(() => entry.count()).toBe(0);
    await finishedTrail(run.runId);
    expect(await outputOf(run.runId)).toEqual({
      item: 'the printer',
      addEventListener: 'on',
      submit: true,
      elements: 3,
    });
    expect(await page.locator('#status').textContent()).toMatch(/^updated /);
  });

  it('declines with a reason', async () => {
    const run = await startRun('transfer', { to: 'Trudy', amount: 9000, account: 'X' });
    const entry = entryOf(page, run.runId);
    await eventually(() => entry.count()).toBe(1);
    await entry.locator('input[data-field="reason"]').fill('not to Trudy');
    await entry.getByRole('button', { name: 'Decline' }).click();
    await eventually(() => entry.count()).toBe(0);
    expect(await finishedTrail(run.runId)).toMatch(/decline · transfer call-0-0 · by bob · reason: not to Trudy/);
  });

  it("follows the webhook's link, and drops a call decided elsewhere", async () => {
    const run = await startRun('transfer', { to: 'Carol', amount: 1, account: 'X' });
    const linked = await browser.newPage();
    try {
      // A new tab has its own session storage: it signs in, and keeps the link's query.
      await linked.goto(`${base}/inbox?run=${encodeURIComponent(run.runId)}&call=call-0-0`);
      await linked.locator('#token').fill(BOB);
      await linked.getByRole('button', { name: 'Sign in' }).click();
      await eventually(() => entryOf(linked, run.runId).getAttribute('class')).toBe('entry linked');
      const { fingerprint } = run.pendingToolCalls![0]!;
      await w.client.approveToolCall({
        runId: run.runId,
        toolCallId: 'call-0-0',
        fingerprint,
        principal: { id: 'carol' },
      });
      await eventually(() => entryOf(linked, run.runId).count()).toBe(0);
      await eventually(() => entryOf(page, run.runId).count()).toBe(0);
      // Once the call waits no more, the link says so and shows the run's trail.
      await eventually(() => linked.locator('#link-note').textContent()).toMatch(/waits no more/);
      await eventually(() => decidedOf(linked, run.runId).locator('.trail').textContent()).toMatch(
        /approve · transfer call-0-0 · by carol/,
      );
    } finally {
      await linked.close();
    }
  });
  it('previews a batch by predicate, then decides exactly the calls it listed, each on its own', async () => {
    const small = await startRun('transfer', { to: 'Dave', amount: 20, account: 'X' });
    const large = await startRun('transfer', { to: 'Erin', amount: 2000, account: 'X' });
    await eventually(() => entryOf(page, large.runId).count()).toBe(1);
    await page.locator('#batch summary').click();
    await page.locator('#batch-tool').fill('transfer');
    await page.locator('#batch-where').fill('amount<=50\nto=Dave');
    await page.getByRole('button', { name: 'Preview' }).click();
    await eventually(() => page.locator('#batch-status').textContent()).toBe('1 to decide, 0 refused');
    expect(await page.locator('#batch-calls li').allTextContents()).toEqual([
      `would approve transfer call-0-0 on run ${small.runId} {"to":"Dave","amount":20,"account":"****"}`,
    ]);
    expect((await w.client.getRun(small.runId)).status).toBe('suspended');

    // A call that begins to wait after the preview is not decided with it, though the conditions take it.
    const later = await startRun('transfer', { to: 'Dave', amount: 30, account: 'X' });
    await page.getByRole('button', { name: 'Decide these' }).click();
    await eventually(() => page.locator('#batch-status').textContent()).toBe('1 decided, 0 refused');
    expect(await finishedTrail(small.runId)).toMatch(/approve · transfer call-0-0 · by bob/);
    expect(await outputOf(small.runId)).toEqual({ sent: 20, to: 'Dave' });
    for (const run of [large, later]) expect((await w.client.getRun(run.runId)).status).toBe('suspended');

    // A condition the server cannot read is said in the form.
    await page.locator('#batch-where').fill('amount is small');
    await page.getByRole('button', { name: 'Preview' }).click();
    await eventually(() => page.locator('#batch-status').textContent()).toMatch(/^InvalidInput.*has no operator/);
  });

  it('reads 100 waiting runs at once, and the next 100 when asked', async () => {
    // 101 runs, 10 started at a time.
    const started: string[] = [];
    for (let batch = 0; batch < 101; batch += 10) {
      const size = Math.min(10, 101 - batch);
      const runs = await Promise.all(
        Array.from({ length: size }, (_, i) =>
          startRun('transfer', { to: 'Zed', amount: batch + i, account: 'X' }, PAGER_ALICE),
        ),
      );
      started.push(...runs.map((run) => run.runId));
    }
    const bob = await browser.newPage();
    try {
      await signIn(bob, PAGER_BOB);
      await eventually(() => bob.locator('#calls li.entry').count()).toBe(100);
      expect(await bob.locator('#more-note').textContent()).toBe(
        'These are the calls of the newest 100 waiting runs; more runs wait.',
      );
      await bob.getByRole('button', { name: 'Show more' }).click();
      await eventually(() => bob.locator('#calls li.entry').count()).toBe(101);
      expect(await bob.locator('#more').isVisible()).toBe(false);
      const shown = await bob.locator('#calls li.entry').evaluateAll((nodes) => nodes.map((n) => n.dataset.run));
      expect([...new Set(shown)].sort()).toEqual([...started].sort());
    } finally {
      await bob.close();
    }
  }, 180_000);
});
