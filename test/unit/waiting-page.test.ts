/**
 * How much one request for a page of waiting runs may make the server read: with runs the caller may
 * not read ahead of its own and `pageSize=1`, filling the page must not take a visibility read a run.
 */
import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AgentClient } from '../../src/client/agent-client.js';
import type { RunInfo, RunPage, RunPageRequest } from '../../src/client/runs/runs.js';
import type { ServerEnv } from '../../src/server/auth/guards.js';
import { PageSeal } from '../../src/server/page-seal.js';
import { RouteAccess } from '../../src/server/routes/access.js';

const principal = { id: 'tess', roles: ['teller'], tenant: 'acme' };
// A run of another teller: Tess may not read it.
const hidden = {
  runId: 'hidden',
  agentId: 'bank-agent',
  resourceId: 'acme',
  startedBy: { id: 'tina', tenant: 'acme' },
  read: ['role:auditor'],
} as unknown as RunInfo;

describe('a page of waiting runs over runs the caller may not read', () => {
  it('makes at most 10 visibility reads, and still gives a token to go on', async () => {
    const asked: RunPageRequest[] = [];
    // A list of hidden runs without end, one a page, as visibility gives them with pageSize=1.
    const client = {
      listRunsPage: async (request: RunPageRequest): Promise<RunPage> => {
        asked.push(request);
        return { runs: [hidden], nextPageToken: `t${asked.length}` };
      },
    } as unknown as AgentClient;
    const access = new RouteAccess(client, [], 'user', new PageSeal());
    const c = { get: () => principal, req: { query: () => undefined } } as unknown as Context<ServerEnv>;
    const page = await access.waitingPage(c, 'bank-agent', { pageSize: '1' });
    expect(page.runs).toEqual([]);
    expect(asked).toHaveLength(10);
    expect(asked.every((request) => request.pageSize === 1)).toBe(true);
    expect(page.nextPageToken).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
