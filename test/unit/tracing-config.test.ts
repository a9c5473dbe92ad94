/** When the environment turns tracing on: off by default, on with an OTLP endpoint, refused when unsupported. */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it, vi } from 'vitest';
import { otlpFromEnv, tracingFromEnv, TracingConfigError } from '../../src/tracing/config.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

it('is off by default', async () => {
  expect(otlpFromEnv({})).toBeUndefined();
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_TRACES_EXPORTER']) {
    vi.stubEnv(name, '');
  }
  expect(await tracingFromEnv('test')).toBeUndefined();
});

it.each(['http/protobuf', 'http/json'])(
  'exports spans to the OTLP endpoint the environment names (%s)',
  async (protocol) => {
    const received: Array<{ url?: string; type?: string; body: string }> = [];
    const server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          url: req.url,
          type: req.headers['content-type'],
          body: Buffer.concat(chunks).toString('latin1'),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', protocol);
      vi.stubEnv('OTEL_SERVICE_NAME', 'billing-worker');
      const tracing = await tracingFromEnv('durable-agents-worker');
      tracing!.tracer.startSpan('probe-span').end();
      await tracing!.shutdown();
      expect(received).toHaveLength(1);
      expect(received[0]!.url).toBe('/v1/traces');
      expect(received[0]!.type).toBe(protocol === 'http/json' ? 'application/json' : 'application/x-protobuf');
      expect(received[0]!.body).toContain('probe-span');
      expect(received[0]!.body).toContain('billing-worker');
    } finally {
      server.close();
    }
  },
);

it('is on with an OTLP endpoint, over HTTP with protobuf unless told JSON', () => {
  expect(otlpFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe('http/protobuf');
  expect(otlpFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe('http/protobuf');
  expect(otlpFromEnv({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe('http/protobuf');
  expect(
    otlpFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }),
  ).toBe('http/json');
  // The traces' own protocol wins over the general one.
  expect(
    otlpFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    }),
  ).toBe('http/json');
});

it('is off when the environment says so, endpoint or not', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  expect(otlpFromEnv({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  expect(otlpFromEnv({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
});

it('refuses what it cannot do, naming the variable, rather than trace nothing', async () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  expect(() => otlpFromEnv({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
    'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: use http/protobuf or http/json (OTLP over HTTP).',
  );
  expect(() => otlpFromEnv({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(TracingConfigError);
  vi.stubEnv('OTEL_TRACES_EXPORTER', 'console');
  await expect(tracingFromEnv('test')).rejects.toThrow(
    'OTEL_TRACES_EXPORTER=console is not supported: traces go out over OTLP only.',
  );
});

it("names the SDK's trace header where the workflow tells a traced run (without loading OpenTelemetry)", async () => {
  const { TRACE_HEADER: sdk } = await import('@temporalio/interceptors-opentelemetry/lib/instrumentation.js');
  const { TRACE_HEADER: ours } = await import('../../src/workflows/trace-interceptors.js');
  expect(ours).toBe(sdk);
});
