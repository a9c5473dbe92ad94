/**
 * The request context: set by the caller within the agent's requestContextSchema, or by the server
 * from the authenticated principal; stored with the run; read by tools, hooks, transforms and
 * sub-agents.
 */
import type { ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RunFailedError, type RunResult, type Script } from '../../src/index.js';
import { bearerTokens, startServer } from '../../src/server/index.js';
import { contextAgent, looseContextAgent, plainAgent, seen } from '../fixtures/context-agents.js';
import { startWorker, type TestWorker } from '../helpers.js';

let w: TestWorker;
beforeAll(async () => {
  w = await startWorker([contextAgent, plainAgent, looseContextAgent]);
});
afterAll(async () => {
  await w?.stop();
});

const whoami: Script = [{ toolCalls: [{ toolName: 'whoami', args: {} }] }, { text: 'Done.' }];

it('reaches the tool, the agent hook, the transform and the sub-agent, and is stored with the run', async () => {
  seen.length = 0;
  const s = await w.client.stream('context-agent', 'who am I?', {
    model: 'scripted',
    script: [
      {
        toolCalls: [
          { toolName: 'whoami', args: {} },
          { toolName: 'agent-helper', args: { prompt: 'who?' } },
        ],
      },
      { text: 'Done.' },
    ],
    subAgentOptions: { helper: { model: 'scripted', script: whoami } },
    requestContext: { userId: 'ann', tier: 'free' },
  });
  const chunks = [];
  for await (const chunk of s) chunks.push(chunk);
  const results = chunks.filter((c) => c.type === 'tool-result');
  // The transform read the tier: a free user's screen does not get the plan.
  expect(results[0]).toMatchObject({ toolName: 'whoami', output: { userId: 'ann', plan: '[pro only]' } });
  expect(seen).toEqual(
    expect.arrayContaining([
      { who: 'hook whoami', userId: 'ann', tier: 'free' },
      { who: 'hook agent-helper', userId: 'ann', tier: 'free' },
      { who: 'tool', userId: 'ann', tier: 'free' },
    ]),
  );
  // Twice the tool: the agent's own call and the sub-agent's.
  expect(seen.filter((s) => s.who === 'tool')).toHaveLength(2);

  const history = await w.client.temporal.workflow.getHandle(s.runId).fetchHistory();
  const [input] = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads!;
  expect(JSON.parse(Buffer.from(input!.data!).toString())).toMatchObject({
    options: { requestContext: { userId: 'ann', tier: 'free' } },
  });
});

it("checks a string format of the agent's schema (an email) in the run, where zod is shared by every run", async () => {
  const done = await w.client.generate('context-agent', 'x', {
    model: 'scripted',
    script: whoami,
    requestContext: { userId: 'ann', email: 'ann@example.com' },
  });
  expect(done.text).toBe('Done.');
  const err = await w.client
    .generate('context-agent', 'x', {
      model: 'scripted',
      script: whoami,
      requestContext: { userId: 'ann', email: 'ann' },
    })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RunFailedError);
  expect((err as Error).message).toMatch(/requestContextSchema: email: Invalid email address/);
});

it('refuses a request context the agent does not allow, before any model call', async () => {
  const refused = async (agentId: string, options: Parameters<typeof w.client.generate>[2]) => {
    const err = await w.client
      .generate(agentId, 'x', { model: 'scripted', script: whoami, ...options })
      .catch((e) => e);
    expect(err).toBeInstanceOf(RunFailedError);
    expect((err as RunFailedError).failureType).toBe('RunOptionsNotAllowed');
    return (err as Error).message;
  };
  expect(await refused('plain-agent', { requestContext: { userId: 'ann' } })).toMatch(
    /requestContext: agent "plain-agent" takes no request context \(it declares no requestContextSchema\)/,
  );
  expect(await refused('context-agent', { requestContext: { userId: 'ann', tier: 'gold' } })).toMatch(
    /requestContext does not fit agent "context-agent"'s requestContextSchema: .*tier/,
  );
  expect(await refused('context-agent', { requestContext: { userId: 'ann', admin: true } })).toMatch(/admin/);
  expect(
    await refused('context-agent', {
      requestContext: { userId: 'ann' },
      subAgentOptions: { helper: { requestContext: { userId: 'root' } } },
    }),
  ).toMatch(/subAgentOptions\.helper\.requestContext: a sub-agent gets the run's own request context/);
});

// The probe: keys the schema does not name were stored with the run and reached its tools.
it('lets only the keys the agent’s schema names reach tools, also where the schema is a loose object', async () => {
  seen.length = 0;
  const err = await w.client
    .generate('loose-context-agent', 'x', {
      model: 'scripted',
      script: whoami,
      requestContext: { userId: 'ann', role: 'admin' },
    })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RunFailedError);
  expect((err as RunFailedError).failureType).toBe('RunOptionsNotAllowed');
  expect((err as Error).message).toMatch(/requestContextSchema names no "role"/);
  expect(seen).toEqual([]);
  const done = await w.client.generate('loose-context-agent', 'x', {
    model: 'scripted',
    script: whoami,
    requestContext: { userId: 'ann', tier: 'pro' },
  });
  expect(done.text).toBe('Done.');
  expect(seen).toContainEqual({ who: 'tool', userId: 'ann', tier: 'pro' });
});

it('takes the request context from the authenticated principal over HTTP, whatever the request says', async () => {
  const server: ServerType = await startServer(w.client, {
    port: 0,
    authenticate: bearerTokens({ 'token-of-ann-0123456789': { id: 'ann' } }),
    requestOptions: ['script', 'requestContext'],
    requestContext: (principal) => ({ userId: principal?.id ?? 'anonymous' }),
  });
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    seen.length = 0;
    const res = await fetch(`${base}/agents/context-agent/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer token-of-ann-0123456789' },
      body: JSON.stringify({
        prompt: 'who am I?',
        options: { script: whoami, requestContext: { userId: 'mallory', tier: 'pro' } },
      }),
    });
    // A key the server sets from the principal is never the caller's to send.
    expect(res.status).toBe(403);
    const { error } = (await res.json()) as { error: { type: string; message: string } };
    expect(error).toMatchObject({ type: 'OptionNotAllowed' });
    expect(error.message).toMatch(/requestContext\.userId: set by this server/);
    const ok = await fetch(`${base}/agents/context-agent/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer token-of-ann-0123456789' },
      body: JSON.stringify({ prompt: 'who am I?', options: { script: whoami, requestContext: { tier: 'pro' } } }),
    });
    expect(ok.status).toBe(200);
    const result = (await ok.json()) as RunResult;
    // The caller may set what the server lets it (the tier), never who it is.
    expect(result.toolResults[0]).toMatchObject({ output: { userId: 'ann' } });
    expect(seen).toContainEqual({ who: 'tool', userId: 'ann', tier: 'pro' });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
