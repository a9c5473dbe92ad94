/**
 * web_fetch against real local HTTP servers. Every local server listens on a non-public address, so the
 * success paths use the test factory with a policy that allows the "site" server at 127.0.0.2 only;
 * a "secret" server at 127.0.0.1 (and ::1) stands for what SSRF would reach, and counts its requests.
 * Each refusal test asserts the reason the guard gives, so it fails if that guard is taken away.
 */
import { execFile } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent, RequestContext, webFetchTool } from '../../src/index.js';
import type { ToolExecutionContext } from '../../src/tools/tool-context.js';
import { createWebFetchTool, type WebFetchToolOptions } from '../../src/tools/builtin/web-fetch.js';
import { isPublicAddress } from '../../src/tools/builtin/ip-address.js';
import { modelCalls, spyModels } from '../fixtures/agents.js';
import { historyEventTypes, startWorker, type TestWorker } from '../helpers.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface TestServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

async function listen(server: Server, host: string, port = 0): Promise<TestServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Requests the secret servers got: any is an SSRF that worked. */
const secretHits: string[] = [];
const secretHandler: Handler = (req, res) => {
  secretHits.push(req.url ?? '');
  res.setHeader('content-type', 'text/plain');
  res.end('SECRET: internal data');
};

const BIG = 'x'.repeat(150_000);
const EMOJI = `a${'😀'.repeat(60_000)}`;

const siteHandler: Handler = (req, res) => {
  const url = new URL(req.url ?? '/', 'http://site');
  const text = (type: string, body: string | Buffer, status = 200) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };
  const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
  if (chain) {
    const left = Number(chain[1]);
    if (left === 0) return text('text/plain', 'end of chain');
    res.writeHead(302, { location: `/chain/${left - 1}` });
    return res.end();
  }
  switch (url.pathname) {
    case '/page':
      return text('text/html; charset=utf-8', '<h1>Hello</h1>');
    case '/latin1':
      return text('text/plain; charset=iso-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café"
    case '/missing':
      return text('text/plain', 'no such page', 404);
    case '/redirect':
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
      return res.end();
    case '/big':
      return text('text/plain', BIG);
    case '/emoji':
      return text('text/plain; charset=utf-8', EMOJI);
    case '/gzip':
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      return res.end(gzipSync('unzipped text'));
    case '/image':
      return text('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    case '/binary': {
      res.writeHead(200, {});
      return res.end(Buffer.from([1, 2, 0, 3]));
    }
    case '/endless': {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'y'.repeat(64 * 1024);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      return pump();
    }
    case '/slow':
      return; // never answers
    default:
      return text('text/plain', 'not found', 404);
  }
};

let secret: TestServer;
let secretV6: TestServer | undefined;
let site: TestServer;
let siteUrl: string;
let secretUrl: string;

beforeAll(async () => {
  secret = await listen(createServer(secretHandler), '127.0.0.1');
  // Same port on ::1, so that the IPv6 spellings of loopback lead to a live server too (where IPv6 is on).
  secretV6 = await listen(createServer(secretHandler), '::1', secret.port).catch(() => undefined);
  site = await listen(createServer(siteHandler), '127.0.0.2');
  siteUrl = `http://127.0.0.2:${site.port}`;
  secretUrl = `http://127.0.0.1:${secret.port}`;
});
afterAll(async () => {
  await Promise.all([secret?.close(), secretV6?.close(), site?.close()]);
});

/** The test policy: the site server only. Everything else the strict policy decides. */
const allowSite = (address: string): boolean => address === '127.0.0.2' || isPublicAddress(address);

/** A resolver that answers from a table, one answer per call for names listed with several. */
function fakeResolver(answers: Record<string, string[][]>): (hostname: string) => Promise<LookupAddress[]> {
  const calls = new Map<string, number>();
  return async (hostname) => {
    const list = answers[hostname];
    if (!list) throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    const n = calls.get(hostname) ?? 0;
    calls.set(hostname, n + 1);
    const addresses = list[Math.min(n, list.length - 1)]!;
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

type FetchOutput = Record<string, unknown>;

/** Runs a web_fetch tool's execute as the worker would, outside Temporal. */
async function fetchWith(tool: typeof webFetchTool, url: string): Promise<FetchOutput> {
  const suspend = () => Promise.reject(new Error('web_fetch does not suspend'));
  const context = {
    runId: 'run-test',
    agentId: 'test',
    toolCallId: 'call-0',
    toolName: 'web_fetch',
    threadId: undefined,
    resourceId: undefined,
    idempotencyKey: 'run-test:call-0',
    attempt: 1,
    abortSignal: new AbortController().signal,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    suspend,
    resumeData: undefined,
    requestContext: new RequestContext(),
    writer: { write: () => Promise.reject(new Error('web_fetch does not write')) },
    agent: { toolCallId: 'call-0', suspend, resumeData: undefined },
  } satisfies ToolExecutionContext;
  const output = await tool.execute!({ url }, context);
  // What the worker does with it: the output must fit the tool's schema.
  return tool.outputSchema!.parse(output) as FetchOutput;
}

function testTool(options: WebFetchToolOptions = {}): typeof webFetchTool {
  return createWebFetchTool({ isAllowedAddress: allowSite, timeoutMs: 3_000, ...options });
}

async function expectRefused(tool: typeof webFetchTool, url: string, reason: RegExp): Promise<void> {
  const before = secretHits.length;
  const output = await fetchWith(tool, url);
  expect(output, url).toEqual({ isError: true, content: expect.stringMatching(reason) });
  expect(output.content as string).not.toContain('\n');
  expect(secretHits.length, `the secret server was reached for ${url}`).toBe(before);
}

describe('web_fetch: fetching', () => {
  it('returns the text, status, content type and final URL of a page', async () => {
    expect(await fetchWith(testTool(), `${siteUrl}/page`)).toEqual({
      content: '<h1>Hello</h1>',
      truncated: false,
      status: 200,
      statusText: 'OK',
      contentType: 'text/html; charset=utf-8',
      url: `${siteUrl}/page`,
      ok: true,
    });
  });

  it('returns an error status as a page with ok false, not as a tool error', async () => {
    expect(await fetchWith(testTool(), `${siteUrl}/missing`)).toMatchObject({
      content: 'no such page',
      status: 404,
      statusText: 'Not Found',
      ok: false,
    });
  });

  it('decodes by the charset the server names, and gunzips', async () => {
    expect(await fetchWith(testTool(), `${siteUrl}/latin1`)).toMatchObject({ content: 'café' });
    expect(await fetchWith(testTool(), `${siteUrl}/gzip`)).toMatchObject({ content: 'unzipped text' });
  });

  it('follows up to 5 redirects and returns the final URL', async () => {
    expect(await fetchWith(testTool(), `${siteUrl}/chain/5`)).toMatchObject({
      content: 'end of chain',
      url: `${siteUrl}/chain/0`,
      ok: true,
    });
  });

  it('refuses a 6th redirect', async () => {
    const output = await fetchWith(testTool(), `${siteUrl}/chain/6`);
    expect(output).toEqual({
      isError: true,
      content: `refused ${siteUrl}/chain/1 (redirect 5 from ${siteUrl}/chain/6): more than 5 redirects: it redirects again, to /chain/0`,
    });
  });
});

describe('web_fetch: bounded responses', () => {
  it('truncates content at 100,000 characters', async () => {
    const output = await fetchWith(testTool(), `${siteUrl}/big`);
    expect(output).toMatchObject({ truncated: true, ok: true });
    expect(output.content).toBe(BIG.slice(0, 100_000));
  });

  it('stops reading an endless body at the byte cap', async () => {
    const started = Date.now();
    const output = await fetchWith(testTool({ timeoutMs: 10_000 }), `${siteUrl}/endless`);
    expect(output).toMatchObject({ truncated: true, ok: true });
    expect((output.content as string).length).toBe(100_000);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('does not end the content on half a surrogate pair', async () => {
    const output = await fetchWith(testTool(), `${siteUrl}/emoji`);
    const content = output.content as string;
    expect(output.truncated).toBe(true);
    expect(content.length).toBe(99_999);
    expect(content.endsWith('😀')).toBe(true);
    expect(EMOJI.startsWith(content)).toBe(true);
  });

  it('times out', async () => {
    const started = Date.now();
    const output = await fetchWith(testTool({ timeoutMs: 300 }), `${siteUrl}/slow`);
    expect(output).toEqual({ isError: true, content: `timed out after 300 ms fetching ${siteUrl}/slow` });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('refuses content that is not text, without reading it', async () => {
    expect(await fetchWith(testTool(), `${siteUrl}/image`)).toEqual({
      isError: true,
      content: `refused ${siteUrl}/image: the response (status 200) is image/png, not text; web_fetch returns text only`,
    });
    expect(await fetchWith(testTool(), `${siteUrl}/binary`)).toMatchObject({
      isError: true,
      content: expect.stringContaining('has no content type and a binary body'),
    });
  });
});

describe('web_fetch: URL rules', () => {
  it('refuses credentials in the URL, and keeps them out of the reason', async () => {
    const output = await fetchWith(testTool(), `http://admin:hunter2@127.0.0.2:${site.port}/page`);
    expect(output).toEqual({
      isError: true,
      content: `the URL carries credentials (http://***@127.0.0.2:${site.port}/page); web_fetch sends none, remove them`,
    });
    expect(output.content).not.toContain('hunter2');
  });

  it('refuses schemes other than http and https, and text that is no URL', async () => {
    expect(await fetchWith(webFetchTool, 'file:///etc/passwd')).toEqual({
      isError: true,
      content: 'only http and https URLs are fetched, not file: (file:///etc/passwd)',
    });
    expect(await fetchWith(webFetchTool, 'ftp://example.com/x')).toMatchObject({ isError: true });
    expect(await fetchWith(webFetchTool, 'example.com/page')).toEqual({
      isError: true,
      content: 'not an absolute URL: "example.com/page"',
    });
  });

  it('refuses a redirect to another scheme', async () => {
    await expectRefused(
      testTool(),
      `${siteUrl}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`,
      /it redirects to a refused URL: only http and https URLs are fetched, not file:/,
    );
  });
});

describe('web_fetch: SSRF', () => {
  it('the exported tool refuses loopback', async () => {
    await expectRefused(
      webFetchTool,
      `${secretUrl}/`,
      /^refused http:\/\/127\.0\.0\.1:\d+\/: 127\.0\.0\.1 is loopback$/,
    );
  });

  it.each([
    ['decimal', 'http://2130706433:PORT/', /: 127\.0\.0\.1 is loopback$/],
    ['octal', 'http://0177.0.0.1:PORT/', /: 127\.0\.0\.1 is loopback$/],
    ['hex, short', 'http://0x7f.1:PORT/', /: 127\.0\.0\.1 is loopback$/],
    ['short', 'http://127.1:PORT/', /: 127\.0\.0\.1 is loopback$/],
    ['unspecified', 'http://0.0.0.0:PORT/', /: 0\.0\.0\.0 is unspecified/],
    ['bracketed IPv6', 'http://[::1]:PORT/', /: ::1 is loopback$/],
    ['IPv4-mapped IPv6', 'http://[::ffff:127.0.0.1]:PORT/', /: ::ffff:7f00:1 is IPv4-mapped IPv6/],
    ['IPv4-compatible IPv6', 'http://[::127.0.0.1]:PORT/', /: ::7f00:1 is IPv4-compatible IPv6/],
  ])('the exported tool refuses a loopback literal, %s', async (_form, url, reason) => {
    await expectRefused(webFetchTool, url.replace('PORT', String(secret.port)), reason);
  });

  it('refuses a name that resolves to loopback (localhost, by the system resolver)', async () => {
    await expectRefused(
      webFetchTool,
      `http://localhost:${secret.port}/`,
      /: localhost resolves to (127\.0\.0\.1|::1), which is loopback$/,
    );
  });

  it('refuses a name that resolves to a private address', async () => {
    const tool = createWebFetchTool({ resolve: fakeResolver({ 'intranet.test': [['10.0.0.5']] }), timeoutMs: 2_000 });
    await expectRefused(tool, 'http://intranet.test/', /: intranet\.test resolves to 10\.0\.0\.5, which is private/);
  });

  it('refuses a name when any one of its addresses is not public', async () => {
    const resolve = fakeResolver({ 'mixed.test': [['93.184.216.34', '127.0.0.1']] });
    await expectRefused(
      createWebFetchTool({ resolve, timeoutMs: 2_000 }),
      `http://mixed.test:${secret.port}/`,
      /: mixed\.test resolves to 127\.0\.0\.1, which is loopback$/,
    );
  });

  it('refuses a redirect from an allowed server to loopback', async () => {
    await expectRefused(
      testTool(),
      `${siteUrl}/redirect?to=${encodeURIComponent(`${secretUrl}/admin`)}`,
      /^refused http:\/\/127\.0\.0\.1:\d+\/admin \(redirect 1 from .*\): 127\.0\.0\.1 is loopback$/,
    );
  });

  it('refuses a redirect to the cloud metadata address', async () => {
    await expectRefused(
      testTool(),
      `${siteUrl}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
      /^refused http:\/\/169\.254\.169\.254\/latest\/meta-data\/ \(redirect 1 from .*\): 169\.254\.169\.254 is link-local/,
    );
  });

  it('refuses a redirect to a name that resolves to loopback', async () => {
    await expectRefused(
      testTool({ resolve: fakeResolver({ 'internal.test': [['127.0.0.1']] }) }),
      `${siteUrl}/redirect?to=${encodeURIComponent(`http://internal.test:${secret.port}/`)}`,
      /: internal\.test resolves to 127\.0\.0\.1, which is loopback$/,
    );
  });

  it('DNS rebinding: a name that passes the first check and then resolves to loopback is refused at connect', async () => {
    // First answer public (the check before connecting), every later one loopback (the connection's own lookup).
    const resolve = fakeResolver({ 'rebind.test': [['93.184.216.34'], ['127.0.0.1']] });
    await expectRefused(
      createWebFetchTool({ resolve, timeoutMs: 2_000 }),
      `http://rebind.test:${secret.port}/`,
      /^refused http:\/\/rebind\.test:\d+\/: rebind\.test resolves to 127\.0\.0\.1, which is loopback$/,
    );
  });

  it('checks the address the connection reached, not only the addresses it was given', async () => {
    // A policy that only knows 127/8 lets 0.0.0.0 through; connecting to 0.0.0.0 reaches this host, at 127.0.0.1.
    const naive = (address: string): boolean => !address.startsWith('127.') && address !== '::1';
    const reason = /: the connection went to 127\.0\.0\.1, which is loopback$/;
    await expectRefused(createWebFetchTool({ isAllowedAddress: naive }), `http://0.0.0.0:${secret.port}/`, reason);
    const resolve = fakeResolver({ 'zero.test': [['0.0.0.0']] });
    await expectRefused(
      createWebFetchTool({ isAllowedAddress: naive, resolve }),
      `http://zero.test:${secret.port}/`,
      reason,
    );
  });
});

describe('web_fetch: https', () => {
  let dir: string;
  let tlsSite: TestServer | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'web-fetch-tls-'));
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.2',
      '-addext',
      'subjectAltName=IP:127.0.0.2',
    ]);
    const server = createTlsServer({ key: await readFile(key), cert: await readFile(cert) }, siteHandler);
    tlsSite = await listen(server, '127.0.0.2');
  });
  afterAll(async () => {
    await tlsSite?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('the exported tool refuses https to loopback before any TLS', async () => {
    await expectRefused(webFetchTool, `https://127.0.0.1:${secret.port}/`, /: 127\.0\.0\.1 is loopback$/);
  });

  it('verifies the certificate of an allowed https server', async () => {
    const output = await fetchWith(testTool(), `https://127.0.0.2:${tlsSite!.port}/page`);
    expect(output).toEqual({ isError: true, content: expect.stringMatching(/failed: self-signed certificate/) });
  });
});

describe('web_fetch in an agent run on Temporal', () => {
  let w: TestWorker;
  const readerAgent = defineAgent({
    id: 'web-reader-agent',
    name: 'Reader',
    instructions: 'Fetch the page the user links to before answering.',
    model: 'spy',
    tools: { web_fetch: webFetchTool },
  });

  beforeAll(async () => {
    w = await startWorker([readerAgent], { models: spyModels });
  });
  afterAll(async () => {
    await w?.stop();
  });

  it('gives the model isError with the reason for a refused URL, and the run goes on', async () => {
    const before = secretHits.length;
    const calls = modelCalls.length;
    const target = `${secretUrl}/admin`;
    const result = await w.client.generate('web-reader-agent', `Read ${target}`, {
      model: 'spy',
      script: [{ toolCalls: [{ toolName: 'web_fetch', args: { url: target } }] }, { text: 'That address is refused.' }],
    });

    const reason = `refused ${target}: 127.0.0.1 is loopback`;
    expect(result.finishReason).toBe('stop');
    expect(result.text).toBe('That address is refused.');
    expect(result.toolResults).toEqual([
      { toolCallId: 'call-0-0', toolName: 'web_fetch', isError: false, output: { isError: true, content: reason } },
    ]);
    const toolMessage = modelCalls[calls + 1]!.prompt.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toEqual([
      expect.objectContaining({
        type: 'tool-result',
        toolName: 'web_fetch',
        output: { type: 'json', value: { isError: true, content: reason } },
      }),
    ]);
    expect(secretHits.length).toBe(before);
    expect(await historyEventTypes(w.client, result.runId)).not.toContain('EVENT_TYPE_WORKFLOW_TASK_FAILED');
  });
});
