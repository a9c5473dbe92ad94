/**
 * A real S3-compatible server for the tests: SeaweedFS (`weed mini`: master, volume, filer and S3
 * gateway in one process) on free ports, with a bucket and credentials of its own. The binary comes
 * from `seaweedfs.sh` (cached under ~/.cache/durable-agents; built from its Go module the first time).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HeadBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

const run = promisify(execFile);

export interface S3Server {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Every key in the bucket. */
  keys(): Promise<string[]>;
  stop(): Promise<void>;
}

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The cached `weed` binary (`bash seaweedfs.sh bin` builds it once when it is not cached yet). */
async function weedBinary(): Promise<string> {
  if (process.env.WEED_BIN) return process.env.WEED_BIN;
  const { stdout } = await run('bash', ['seaweedfs.sh', 'bin'], { maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim().split('\n').at(-1)!;
}

export async function startS3Server(): Promise<S3Server> {
  const weed = await weedBinary();
  const dir = await mkdtemp(join(tmpdir(), 'seaweedfs-'));
  const [master, masterGrpc, volume, volumeGrpc, filer, filerGrpc, s3, s3Grpc] = await Promise.all(
    Array.from({ length: 8 }, freePort),
  );
  const bucket = 'payloads';
  const accessKeyId = `test-${randomBytes(4).toString('hex')}`;
  const secretAccessKey = randomBytes(16).toString('hex');
  const child: ChildProcess = spawn(
    weed,
    [
      'mini',
      `-dir=${dir}`,
      '-ip=127.0.0.1',
      '-ip.bind=127.0.0.1',
      `-bucket=${bucket}`,
      `-master.port=${master}`,
      `-master.port.grpc=${masterGrpc}`,
      '-master.telemetry=false',
      `-volume.port=${volume}`,
      `-volume.port.grpc=${volumeGrpc}`,
      `-filer.port=${filer}`,
      `-filer.port.grpc=${filerGrpc}`,
      `-s3.port=${s3}`,
      `-s3.port.grpc=${s3Grpc}`,
      '-s3.port.iceberg=0',
      '-s3.port.lance=0',
      '-webdav=false',
      '-admin.ui=false',
    ],
    {
      // `weed mini` makes these its first identity (an admin) and creates the bucket for it.
      env: { ...process.env, AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${s3}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
  const stop = async () => {
    client.destroy();
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  // Up once its S3 gateway answers for the bucket (the gateway waits for the filer, the filer for the master).
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`weed mini exited (${child.exitCode}) before serving S3:\n${output}`);
    }
    const up = await client.send(new HeadBucketCommand({ Bucket: bucket })).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`weed mini did not serve S3 on ${endpoint} within 90 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    endpoint,
    bucket,
    accessKeyId,
    secretAccessKey,
    async keys() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).map((o) => o.Key!));
        token = page.NextContinuationToken;
      } while (token);
      return keys;
    },
    stop,
  };
}
