/**
 * Issue #31, item 3: the lists an operator and the inbox read while thousands of runs wait. Each is
 * visibility only (no history is read): `agentctl runs list --status suspended` as a process of its own
 * (its default 50 runs, and a page of 1,000), the inbox's first page (`GET /inbox/calls`, 100 runs, from
 * an HTTP server in this process), and every waiting run walked a page of 1,000 at a time through
 * `listRunsPage`, counted against the runs started (none may be missing).
 */
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import type { AgentClient } from '../src/client/index.js';
import { startServer } from '../src/server/index.js';
import { summarize, type Summary } from './stats.js';
import { benchAgent } from './systems.js';

const run = promisify(execFile);

export interface ListTimings {
  /** ms from start to exit, or to the answer, over the repeats. */
  agentctlList: Summary;
  agentctlPage1000: Summary;
  inboxFirstPage: Summary;
  /** Every waiting run, a page of 1,000 at a time: how long, how many pages, how many runs found. */
  walk: { ms: number; pages: number; found: number; unique: number };
  inboxCalls: number;
}

/** The lists over `ids`, every one waiting; `repeats` times each, interleaved. */
export async function listTimings(
  address: string,
  client: AgentClient,
  ids: string[],
  repeats: number,
): Promise<ListTimings> {
  const server = await startServer(client, { port: 0, agents: [benchAgent] });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const at = ['--address', address, '--namespace', 'default'];
  const times = { agentctlList: [] as number[], agentctlPage1000: [] as number[], inboxFirstPage: [] as number[] };
  let inboxCalls = 0;
  try {
    // The first round warms the OS file cache and Node's compile cache, as a shell's second call would.
    for (let r = -1; r < repeats; r++) {
      let t = performance.now();
      await run(process.execPath, ['bin/agentctl.js', 'runs', 'list', '--status', 'suspended', ...at]);
      if (r >= 0) times.agentctlList.push(performance.now() - t);
      t = performance.now();
      const paged = ['runs', 'list', '--status', 'suspended', '--page-size', '1000', '--json'];
      await run(process.execPath, ['bin/agentctl.js', ...paged, ...at], { maxBuffer: 256 * 2 ** 20 });
      if (r >= 0) times.agentctlPage1000.push(performance.now() - t);
      t = performance.now();
      const res = await fetch(`${base}/inbox/calls`);
      const body = (await res.json()) as { calls: unknown[] };
      if (r >= 0) times.inboxFirstPage.push(performance.now() - t);
      inboxCalls = body.calls.length;
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  // Visibility may lag the last runs by a moment: walked again (at most 10 times) until it lists them all.
  let walk = await walkAll(client, ids);
  for (let tries = 1; tries < 10 && walk.unique < ids.length; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    walk = await walkAll(client, ids);
  }
  return {
    agentctlList: summarize(times.agentctlList),
    agentctlPage1000: summarize(times.agentctlPage1000),
    inboxFirstPage: summarize(times.inboxFirstPage),
    walk,
    inboxCalls,
  };
}

async function walkAll(client: AgentClient, ids: string[]): Promise<ListTimings['walk']> {
  const t = performance.now();
  const seen: string[] = [];
  let pages = 0;
  let pageToken: string | undefined;
  do {
    const page = await client.listRunsPage({ status: 'suspended', pageSize: 1000, pageToken });
    seen.push(...page.runs.map((r) => r.runId));
    pageToken = page.nextPageToken;
    pages += 1;
  } while (pageToken);
  const ms = performance.now() - t;
  const started = new Set(ids);
  const found = seen.filter((id) => started.has(id));
  return { ms, pages, found: found.length, unique: new Set(found).size };
}
