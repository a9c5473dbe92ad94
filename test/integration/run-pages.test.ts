/**
 * Lists of runs a page at a time, as a script, an operator and the inbox walk 10,000 waiting runs:
 * the client's `listRunsPage`, agentctl's `--page-size`/`--page-token`, and the HTTP lists' `pageSize` and
 * `pageToken`. Every page is one request to visibility; the walk finds each run once; a token never
 * widens what a caller may see.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError, type RunInfo, type RunResult } from '../../src/index.js';
import { bankAgent, transferScript } from '../fixtures/bank.js';
import { serveWithTokens, startWorker, temporalAddress, waitFor, type TestWorker } from '../helpers.js';
import { agentctl } from '../processes.js';

// Tenants of this file alone, so that the counts are not other files' runs.
const tenant = `pages-${randomUUID().slice(0, 8)}`;
const other = `pages-other-${randomUUID().slice(0, 8)}`;
const people = {
  tina: { token: 'pages-tina-token-0001', principal: { id: 'tina', roles: ['teller'], tenant } },
  ann: { token: 'pages-ann-token-00002', principal: { id: 'ann', roles: ['approver'], tenant } },
  olga: { token: 'pages-olga-token-0003', principal: { id: 'olga', roles: ['approver'], tenant: other } },
  // A teller reads only the runs she started: the approvers' and Tina's are not hers to see.
  tess: { token: 'pages-tess-token-0004', principal: { id: 'tess', roles: ['teller'], tenant } },
};
const WAITING = 7;

let w: TestWorker;
let server: { base: string; close(): Promise<void> };
const started: string[] = [];
const tessRuns: string[] = [];

async function get(path: string, who: keyof typeof people): Promise<Response> {
  return fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${people[who].token}` } });
}

beforeAll(async () => {
  w = await startWorker([bankAgent]);
  server = await serveWithTokens(w.client, people, [bankAgent]);
  const start = async (who: 'tina' | 'tess', amount: number): Promise<string> => {
    const res = await fetch(`${server.base}/agents/bank-agent/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${people[who].token}` },
      body: JSON.stringify({ prompt: `send ${amount} to bob`, options: { script: transferScript(amount) } }),
    });
    const paused = (await res.json()) as RunResult;
    expect(paused.finishReason).toBe('suspended');
    return paused.runId;
  };
  // Tess's runs first: the oldest, behind Tina's in visibility's order (the newest first).
  for (let i = 0; i < 3; i++) tessRuns.push(await start('tess', i + 1));
  for (let i = 0; i < WAITING; i++) started.push(await start('tina', i + 1));
  // Visibility lags the runs a little: every list below starts once all of them are listed.
  await waitFor('every run listed as waiting', async () => {
    const runs = await w.client.listRuns({ status: 'suspended', resourceId: tenant, limit: 100 });
    return runs.length === WAITING + 3 ? runs : undefined;
  });
});
afterAll(async () => {
  await server?.close();
  await w?.stop();
});

describe('the client', () => {
  it('walks every waiting run once, a page at a time, and says when the last page is read', async () => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let pageToken: string | undefined;
    do {
      const page = await w.client.listRunsPage({ status: 'suspended', resourceId: tenant, pageSize: 3, pageToken });
      sizes.push(page.runs.length);
      seen.push(...page.runs.map((run: RunInfo) => run.runId));
      pageToken = page.nextPageToken;
    } while (pageToken);
    expect(sizes).toEqual([3, 3, 3, 1]);
    expect(new Set(seen).size).toBe(WAITING + 3);
    expect([...seen].sort()).toEqual([...started, ...tessRuns].sort());
  });

  it('refuses a page size out of bounds, a token that is not one, and a key it does not know', async () => {
    for (const pageSize of [0, 1001, 2.5]) {
      await expect(w.client.listRunsPage({ pageSize })).rejects.toThrow(InvalidInputError);
    }
    await expect(w.client.listRunsPage({ pageToken: 'not a token!' })).rejects.toThrow(/pageToken: .*base64url/);
    // Well-formed text that is no page's token, and a token of another filter: refused before they are sent.
    await expect(w.client.listRunsPage({ pageToken: 'AAAA' })).rejects.toThrow(/pageToken: not the token of a page/);
    const first = await w.client.listRunsPage({ status: 'suspended', resourceId: tenant, pageSize: 2 });
    const elsewhere = { status: 'suspended' as const, resourceId: other, pageToken: first.nextPageToken };
    await expect(w.client.listRunsPage(elsewhere)).rejects.toThrow(/pageToken: not the token of a page of this list/);
    await expect(w.client.listRunsPage({ pageToken: 'x'.repeat(5000) })).rejects.toThrow(InvalidInputError);
    await expect(w.client.listRunsPage({ limit: 5 } as never)).rejects.toThrow(/listRunsPage: .*limit/);
  });
});

describe('HTTP', () => {
  it("pages the agent's waiting runs and the inbox's calls, each page within the caller's tenant", async () => {
    const walk = async (path: string, key: 'runs' | 'calls') => {
      const ids: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const res = await get(`${path}?pageSize=4${token ? `&pageToken=${token}` : ''}`, 'ann');
        expect(res.status).toBe(200);
        const body = (await res.json()) as Record<string, Array<{ runId: string }>> & { nextPageToken?: string };
        ids.push(...body[key]!.map((entry) => entry.runId));
        token = body.nextPageToken;
        pages += 1;
      } while (token);
      return { ids, pages };
    };
    for (const [path, key] of [
      ['/agents/bank-agent/suspended-runs', 'runs'],
      ['/inbox/calls', 'calls'],
    ] as const) {
      const { ids, pages } = await walk(path, key);
      expect(pages).toBe(3);
      expect([...ids].sort()).toEqual([...started, ...tessRuns].sort());
    }
  });

  it("gives another tenant none of these runs, even with this tenant's token for the next page", async () => {
    const first = (await (await get('/inbox/calls?pageSize=2', 'ann')).json()) as { nextPageToken?: string };
    expect(first.nextPageToken).toBeDefined();
    const res = await get(`/inbox/calls?pageSize=2&pageToken=${first.nextPageToken}`, 'olga');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/pageToken: not a token this server gave for this list/);
    const own = (await (await get('/inbox/calls', 'olga')).json()) as { calls: Array<{ runId: string }> };
    expect(own.calls.filter((call) => started.includes(call.runId))).toEqual([]);
    const asked = await get(`/agents/bank-agent/suspended-runs?resourceId=${tenant}`, 'olga');
    expect(asked.status).toBe(403);
  });

  it('fills a page with runs the caller may read, and its token tells nothing of the others', async () => {
    const pages: string[][] = [];
    const tokens: string[] = [];
    let token: string | undefined;
    do {
      const res = await get(`/inbox/calls?pageSize=2${token ? `&pageToken=${token}` : ''}`, 'tess');
      expect(res.status).toBe(200);
      const body = (await res.json()) as { calls: Array<{ runId: string }>; nextPageToken?: string };
      pages.push(body.calls.map((call) => call.runId));
      token = body.nextPageToken;
      if (token) tokens.push(token);
    } while (token);
    // Tina's 7 runs come first in visibility's order: the first page reads past them to Tess's own, a
    // visibility page at a time, so it may hold a few more than its size.
    expect(pages[0]!.length).toBeGreaterThanOrEqual(2);
    expect(pages.length).toBeLessThanOrEqual(2);
    expect(pages.flat().sort()).toEqual([...tessRuns].sort());
    // Temporal's own cursor names the last row it read (its start time and run id), which may be a run
    // the caller may not read; the server's token is sealed.
    for (const sealed of tokens) expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toMatch(/RunID|Time/i);
  });

  it('refuses a parameter it does not take, one given twice, and a page size out of bounds, by name', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/inbox/calls?limit=5', /limit: not a parameter of GET \/inbox\/calls/],
      ['/inbox/calls?pageSize=2&pageSize=900', /pageSize: given more than once/],
      ['/agents/bank-agent/suspended-runs?pageSize=0', /pageSize: "0" is not a whole number from 1 to 1000/],
      ['/agents/bank-agent/suspended-runs?pageSize=1e3', /pageSize: "1e3" is not a whole number/],
      ['/agents/bank-agent/suspended-runs?agentId=x', /agentId: not a parameter/],
      ['/inbox/calls?pageToken=AAAA', /pageToken: not a token this server gave for this list/],
    ];
    for (const [path, pattern] of cases) {
      const res = await get(path, 'ann');
      expect(res.status, path).toBe(400);
      const { error } = (await res.json()) as { error: { type: string; message: string } };
      expect(error.message, path).toMatch(pattern);
    }
  });
});

describe('agentctl', () => {
  const ctl = (args: string[]) =>
    agentctl(['--address', temporalAddress(), '--namespace', 'default', '--task-queue', w.taskQueue, ...args]);

  it('prints a page and the flag that reads the next, in text and in JSON', async () => {
    const filter = ['runs', 'list', '--status', 'suspended', '--resource', tenant];
    const first = await ctl([...filter, '--page-size', '5']);
    expect(first.code).toBe(0);
    const next = /^next page: --page-token (\S+)$/m.exec(first.stdout)?.[1];
    expect(next).toBeDefined();
    expect(first.stdout.split('\n').filter((line) => started.some((id) => line.startsWith(id)))).toHaveLength(5);
    const second = await ctl([...filter, '--page-size', '5', '--page-token', next!, '--json']);
    expect(second.code).toBe(0);
    const page = JSON.parse(second.stdout) as { runs: Array<{ runId: string }>; nextPageToken?: string };
    expect(page.runs).toHaveLength(WAITING + 3 - 5);
    // Visibility gives a token after a full page: the page it reads is then empty, and the last.
    if (page.nextPageToken) {
      const third = await ctl([...filter, '--page-size', '5', '--page-token', page.nextPageToken, '--json']);
      expect(JSON.parse(third.stdout)).toEqual({ runs: [] });
    }
  });

  it('refuses --page-size with --limit, and a page size out of bounds, before connecting', async () => {
    const both = await ctl(['runs', 'list', '--page-size', '5', '--limit', '10']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--page-size <n>' cannot be used with option '--limit <n>'/);
    // Refused before connecting: at an address where nothing answers, the flag is what is named.
    const nowhere = (args: string[]) => agentctl(['--address', '127.0.0.1:1', 'runs', 'list', ...args]);
    const big = await nowhere(['--page-size', '5000']);
    expect(big.code).toBe(2);
    expect(big.stderr).toMatch(/--page-size: "5000" is not a whole number from 1 to 1000/);
    const forged = await nowhere(['--page-token', 'not a token!']);
    expect(forged.code).toBe(2);
    expect(forged.stderr).toMatch(/--page-token: "not a token!" is not a token a page printed/);
  });
});
