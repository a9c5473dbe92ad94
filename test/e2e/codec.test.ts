/**
 * The codec configured once, across real processes: a worker (`npm run worker`), agentctl, the codec
 * server (`npm run codec-server`), and the Temporal CLI decoding a run's history through it.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteRecordScript } from '../../examples/records-agent.js';
import { type RunResult } from '../../src/index.js';
import { createPayloadCodec } from '../../src/codec/index.js';
import { temporalAddress, waitFor } from '../helpers.js';
import { agentctl, devServer, spawnWorker, type WorkerProcess } from '../processes.js';

const run = promisify(execFile);
const key = randomBytes(32).toString('base64');
const TOKEN = randomBytes(24).toString('hex');
/** Neither the developer's own codec settings nor those of another test leak in. */
const NO_CODEC_ENV = {
  DURABLE_AGENTS_CODEC_KEYS: '',
  DURABLE_AGENTS_CODEC_KEYS_FILE: '',
  DURABLE_AGENTS_CODEC_CURRENT_KEY: '',
};

interface CodecServer {
  child: ChildProcess;
  url: string;
  output(): string;
}

/** Starts examples/codec-server.ts; resolves with its address once it listens, or with its exit code. */
async function spawnCodecServer(env: Record<string, string>): Promise<CodecServer | { code: number; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/codec-server.ts'], {
    env: { ...process.env, TEMPORAL_NAMESPACE: 'default', DURABLE_AGENTS_CODEC_SERVER_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve) => {
    const onData = (d: Buffer): void => {
      output += d.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) resolve({ child, url, output: () => output });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => resolve({ code: code ?? -1, output }));
  });
}

let dir: string;
let keysFile: string;
let taskQueue: string;
let worker: WorkerProcess;
let codecServer: CodecServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codec-e2e-'));
  keysFile = join(dir, 'codec-keys');
  await writeFile(keysFile, `# the e2e keyring\ne2e-1:${key}\n`);
  taskQueue = `e2e-codec-${randomUUID()}`;
  worker = await spawnWorker({
    ...NO_CODEC_ENV,
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_TASK_QUEUE: taskQueue,
    RECORDS_FILE: join(dir, 'records.json'),
    DURABLE_AGENTS_CODEC_KEYS_FILE: keysFile,
  });
  const started = await spawnCodecServer({
    ...NO_CODEC_ENV,
    DURABLE_AGENTS_CODEC_KEYS: `e2e-1:${key}`,
    DURABLE_AGENTS_CODEC_SERVER_TOKEN: TOKEN,
  });
  if (!('url' in started)) throw new Error(`the codec server did not start:\n${started.output}`);
  codecServer = started;
});
afterAll(async () => {
  worker?.child.kill('SIGKILL');
  codecServer?.child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

const ctl = (args: string[], env: Record<string, string>) =>
  agentctl(['--address', temporalAddress(), '--namespace', 'default', '--task-queue', taskQueue, ...args], {
    ...NO_CODEC_ENV,
    ...env,
  });

/** The payloads in `temporal workflow show -o json` output (protobuf JSON: bytes in base64), as text. */
function payloadsIn(json: string): Array<{ encoding: string; text: string }> {
  const found: Array<{ encoding: string; text: string }> = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const { metadata, data } = node as { metadata?: { encoding?: unknown }; data?: unknown };
      if (typeof metadata?.encoding === 'string' && typeof data === 'string')
        found.push({
          encoding: Buffer.from(metadata.encoding, 'base64').toString(),
          text: Buffer.from(data, 'base64').toString(),
        });
      else Object.values(node).forEach(walk);
    }
  };
  walk(JSON.parse(json));
  return found;
}

/** `temporal workflow show` as JSON, with the given extra CLI flags (codec endpoint and auth). */
async function temporalShow(runId: string, flags: string[]): Promise<{ code: number; out: string }> {
  const cli = await devServer(['cli']);
  const args = ['workflow', 'show', '-w', runId, '--address', temporalAddress(), '-n', 'default', '-o', 'json'];
  try {
    const { stdout } = await run(cli, [...args, ...flags]);
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

it('worker, agentctl, codec server and Temporal CLI share one keyring; without it agentctl says which key', async () => {
  expect(worker.output()).toContain(
    `on task queue "${taskQueue}" in namespace "default"; payloads encrypted with codec key "e2e-1"`,
  );
  const prompt = `Delete the list. secret-${randomUUID()}`;
  const script = join(dir, 'script.json');
  await writeFile(script, JSON.stringify(deleteRecordScript));
  const started = await ctl(['start', 'records-agent', '--prompt', prompt, '--script', script, '--json'], {
    DURABLE_AGENTS_CODEC_KEYS_FILE: keysFile,
  });
  expect(started.code).toBe(0);
  const paused = JSON.parse(started.stdout) as RunResult;
  expect(paused.pendingToolCalls).toMatchObject([{ toolName: 'deleteRecord', args: { id: 'r2' } }]);

  const blind = await ctl(['runs', 'show', paused.runId], {});
  expect(blind).toMatchObject({ code: 1, stdout: '' });
  expect(blind.stderr).toBe(
    'agentctl: A payload is encrypted with codec key "e2e-1", but this process has no codec keys. ' +
      'Set DURABLE_AGENTS_CODEC_KEYS (or DURABLE_AGENTS_CODEC_KEYS_FILE), or pass { codec }.\n',
  );
  // A list does not fail on a run it cannot read: it shows it, and says why.
  const listed = await waitFor('the run in the list', async () => {
    const list = await ctl(['runs', 'list', '--agent', 'records-agent', '--json'], {});
    expect(list.code).toBe(0);
    return (JSON.parse(list.stdout) as Array<{ runId: string; unreadable?: string }>).find(
      (r) => r.runId === paused.runId,
    );
  });
  expect(listed.unreadable).toMatch(/encrypted with codec key "e2e-1"/);
  const shown = await ctl(['--codec-keys-file', keysFile, 'runs', 'show', paused.runId], {});
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain('deleteRecord({"id":"r2"})');

  // The history as the server keeps it, and as the CLI shows it through the codec server.
  const stored = await temporalShow(paused.runId, []);
  expect(stored.code).toBe(0);
  // In clear: the search attributes (agent id, status, waiting tool-call ids, and Temporal's own
  // TemporalChangeVersion naming the run loop's patches), which no codec encodes, and the SDK's marker
  // details (a patch's id; a local activity's type and times): none of them holds the run's data.
  const clear = payloadsIn(stored.out).filter((p) => p.encoding !== 'binary/encrypted');
  expect(new Set(clear.map((p) => p.encoding))).toEqual(new Set(['json/plain']));
  const values = clear.map((p) => JSON.parse(p.text) as unknown);
  const names = values.flatMap((v) => (typeof v === 'string' ? [v] : Array.isArray(v) ? (v as string[]) : []));
  const patches = ['lean-history', 'conversation-by-reference'];
  expect(new Set(names)).toEqual(new Set(['records-agent', 'running', 'suspended', 'call-1-0', ...patches]));
  expect(values.filter((v) => typeof v === 'object' && v !== null && !Array.isArray(v))).toEqual([
    ...patches.map((id) => ({ id, deprecated: false })),
    expect.objectContaining({ activity_type: 'describeAgent' }),
  ]);
  expect(stored.out).not.toContain(prompt);
  const auth = ['--codec-endpoint', codecServer.url, '--codec-auth'];
  const decoded = await temporalShow(paused.runId, [...auth, `Bearer ${TOKEN}`]);
  expect(decoded.code).toBe(0);
  expect(payloadsIn(decoded.out)[0]?.text).toContain(prompt); // the run's input
  const refused = await temporalShow(paused.runId, [...auth, 'Bearer nope']);
  expect(refused.code).not.toBe(0);
  expect(refused.out).not.toContain(prompt);

  const approved = await ctl(['--as', 'ops', 'approve', paused.runId, '--latest', '--wait'], {
    DURABLE_AGENTS_CODEC_KEYS: `e2e-1:${key}`,
  });
  expect(approved.code).toBe(0);
  expect(approved.stdout).toContain('Done: record r2 is deleted.');
});

describe('the codec server', () => {
  const payload = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: '' };
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${codecServer.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
      body: JSON.stringify(body),
    });

  it('encodes and decodes in the protocol, readable by the same keys in code', async () => {
    const value = { secret: randomUUID() };
    const clear = { ...payload, data: Buffer.from(JSON.stringify(value)).toString('base64') };
    const encoded = await post('/encode', { payloads: [clear] }, { 'x-namespace': 'default' });
    expect(encoded.status).toBe(200);
    const { payloads } = (await encoded.json()) as {
      payloads: Array<{ metadata: Record<string, string>; data: string }>;
    };
    expect(Buffer.from(payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(payloads[0]!.metadata['encryption-key-id']!, 'base64').toString()).toBe('e2e-1');

    const decoded = await post('/decode', { payloads });
    expect(await decoded.json()).toEqual({ payloads: [clear] });
    const inCode = createPayloadCodec({ keys: [{ id: 'e2e-1', key }] });
    const [fromCode] = await inCode.encode([
      { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('7') },
    ]);
    const viaServer = await post('/decode', {
      payloads: [
        {
          metadata: {
            encoding: Buffer.from(fromCode!.metadata!.encoding!).toString('base64'),
            'encryption-key-id': Buffer.from('e2e-1').toString('base64'),
          },
          data: Buffer.from(fromCode!.data!).toString('base64'),
        },
      ],
    });
    expect(await viaServer.json()).toEqual({ payloads: [{ ...payload, data: Buffer.from('7').toString('base64') }] });
  });

  it('refuses without the token, for another namespace, and for bad input, each with a reason', async () => {
    const noToken = await fetch(`${codecServer.url}/decode`, { method: 'POST', body: '{"payloads":[]}' });
    expect(noToken.status).toBe(401);
    expect(await noToken.json()).toEqual({
      error: { type: 'Unauthorized', message: 'send the codec endpoint token as "Authorization: Bearer <token>"' },
    });
    expect((await post('/decode', { payloads: [] }, { authorization: 'Bearer wrong' })).status).toBe(401);
    const otherNamespace = await post('/decode', { payloads: [] }, { 'x-namespace': 'payments' });
    expect(otherNamespace.status).toBe(403);
    expect(await otherNamespace.json()).toMatchObject({
      error: { message: 'this codec endpoint serves "default", not "payments"' },
    });
    expect((await post('/decode', { payloads: 'x' })).status).toBe(400);
    const unknownKey = {
      metadata: {
        encoding: Buffer.from('binary/encrypted').toString('base64'),
        'encryption-key-id': Buffer.from('old').toString('base64'),
      },
      data: 'AAAA',
    };
    const undecodable = await post('/decode', { payloads: [unknownKey] });
    expect(undecodable.status).toBe(422);
    expect(await undecodable.json()).toMatchObject({
      error: { type: 'UnknownCodecKeyError', message: expect.stringContaining('codec key "old"') },
    });
  });

  it("answers the Web UI's CORS preflight for its origin only", async () => {
    const preflight = (origin: string) =>
      fetch(`${codecServer.url}/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,x-namespace,content-type',
        },
      });
    const ui = await preflight('http://localhost:8233');
    expect(ui.status).toBe(204);
    expect(ui.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    expect(ui.headers.get('access-control-allow-headers')).toBe('Content-Type,Authorization,X-Namespace');
    expect(ui.headers.get('access-control-allow-credentials')).toBe('true');
    expect((await preflight('https://elsewhere.example')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('without a token, answers only its own Host names and JSON posts: no DNS rebinding, no cross-site form', async () => {
    const open = await spawnCodecServer({ ...NO_CODEC_ENV, DURABLE_AGENTS_CODEC_KEYS: `e2e-1:${key}` });
    if (!('url' in open)) throw new Error(`the codec server did not start:\n${open.output}`);
    const body = JSON.stringify({ payloads: [{ ...payload, data: Buffer.from('"secret"').toString('base64') }] });
    const send = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port: Number(new URL(open.url).port), path: '/encode', method: 'POST', headers },
          (r) => {
            let text = '';
            r.on('data', (d: Buffer) => (text += d.toString()));
            r.on('end', () => resolve({ status: r.statusCode ?? 0, body: text }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const json = { 'content-type': 'application/json' };
    try {
      const rebound = await send({ ...json, host: `evil.example:${new URL(open.url).port}` });
      expect(rebound.status).toBe(403);
      expect(JSON.parse(rebound.body)).toMatchObject({ error: { type: 'HostNotAllowed' } });
      const crossSite = await send({
        host: new URL(open.url).host,
        'content-type': 'text/plain',
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
      });
      expect(crossSite.status).toBe(403);
      expect(JSON.parse(crossSite.body)).toMatchObject({ error: { type: 'OriginNotAllowed' } });
      const plain = await send({ host: new URL(open.url).host, 'content-type': 'text/plain' });
      expect(plain.status).toBe(415);
      expect(JSON.parse(plain.body)).toMatchObject({ error: { type: 'UnsupportedMediaType' } });
      // The CLI (JSON, no origin) and the Web UI (JSON from its origin) are answered.
      for (const headers of [{ ...json }, { ...json, origin: 'http://localhost:8233' }]) {
        const answered = await send({ ...headers, host: new URL(open.url).host });
        expect(answered.status).toBe(200);
        expect(JSON.parse(answered.body)).toMatchObject({ payloads: [{ data: expect.any(String) }] });
      }
    } finally {
      open.child.kill('SIGKILL');
    }
  });

  it('refuses to start off loopback without a token, or without keys', async () => {
    const exposed = await spawnCodecServer({
      ...NO_CODEC_ENV,
      DURABLE_AGENTS_CODEC_KEYS: `e2e-1:${key}`,
      DURABLE_AGENTS_CODEC_SERVER_HOST: '0.0.0.0',
    });
    expect(exposed).toMatchObject({ code: 1 });
    expect((exposed as { output: string }).output).toMatch(
      /^codec-server: The codec endpoint decrypts payloads for whoever calls it, so on 0\.0\.0\.0 \(not a loopback address\) it needs a bearer token/,
    );
    const hostless = await spawnCodecServer({
      ...NO_CODEC_ENV,
      DURABLE_AGENTS_CODEC_KEYS: `e2e-1:${key}`,
      DURABLE_AGENTS_CODEC_SERVER_HOST: '0.0.0.0',
      DURABLE_AGENTS_CODEC_SERVER_TOKEN: TOKEN,
    });
    if ('child' in hostless) hostless.child.kill('SIGKILL');
    expect(hostless).toMatchObject({ code: 1 });
    expect((hostless as { output: string }).output).toMatch(
      /^codec-server: the codec endpoint on 0\.0\.0\.0: say which Host names clients reach it by \(DURABLE_AGENTS_CODEC_SERVER_ALLOWED_HOSTS/,
    );
    const keyless = await spawnCodecServer({ ...NO_CODEC_ENV });
    expect(keyless).toMatchObject({
      code: 1,
      output: 'codec-server: no codec keys: set DURABLE_AGENTS_CODEC_KEYS or DURABLE_AGENTS_CODEC_KEYS_FILE\n',
    });
  });
});
