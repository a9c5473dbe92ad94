/**
 * What a process needs of tracing whether or not it traces: whether the environment turns it on (read
 * the way OpenTelemetry SDKs read it), and the workflow span sink every worker registers. Nothing of
 * OpenTelemetry is loaded from here: the tracing module is imported only once tracing is on.
 */
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import type { InjectedSinks } from '@temporalio/worker';
import { requirePeers, TRACING_PEERS } from '../peers.js';
import type { OtlpProtocol, Tracing } from './tracing.js';

/** Tracing settings in the environment that this package cannot honour. */
export class TracingConfigError extends Error {
  override readonly name = 'TracingConfigError';
  constructor(
    readonly variable: string,
    readonly value: string,
    supported: string,
  ) {
    super(`${variable}=${value} is not supported: ${supported}.`);
  }
}

export type { OtlpProtocol } from './tracing.js';

/**
 * The OTLP protocol when the environment turns tracing on, else undefined: on with
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_TRACES_EXPORTER=otlp`
 * (then to `http://localhost:4318`); off with `OTEL_TRACES_EXPORTER=none` or `OTEL_SDK_DISABLED=true`.
 * The exporter itself reads the endpoint, headers, timeout and compression from the same variables.
 */
export function otlpFromEnv(env: NodeJS.ProcessEnv = process.env): OtlpProtocol | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (exporters.includes('none')) return undefined;
  const unsupported = exporters.find((e) => e !== 'otlp');
  if (unsupported) {
    throw new TracingConfigError('OTEL_TRACES_EXPORTER', env.OTEL_TRACES_EXPORTER!, 'traces go out over OTLP only');
  }
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint && !exporters.includes('otlp')) return undefined;
  const [variable, protocol] = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
    ? ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL.trim()]
    : ['OTEL_EXPORTER_OTLP_PROTOCOL', env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() || 'http/protobuf'];
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new TracingConfigError(variable, protocol, 'use http/protobuf or http/json (OTLP over HTTP)');
  }
  return protocol;
}

/**
 * Tracing as the process's environment configures it (see {@link otlpFromEnv}): spans batched to the
 * OTLP endpoint, with `serviceName` unless `OTEL_SERVICE_NAME` names the service. Undefined while off.
 */
export async function tracingFromEnv(serviceName: string): Promise<Tracing | undefined> {
  const protocol = otlpFromEnv(process.env);
  if (!protocol) return undefined;
  requirePeers('tracing (OTEL_* in the environment)', TRACING_PEERS);
  const { otlpTracing } = await import('./tracing.js');
  return otlpTracing(protocol, process.env.OTEL_SERVICE_NAME?.trim() || serviceName);
}

/**
 * The workflow span sink every worker registers: spans of traced runs go to `tracing`, or nowhere on
 * a worker without it (a run started by a tracing client may land on any worker). Not called on replay.
 */
export function workflowSpanSinks(tracing: Tracing | undefined): InjectedSinks<OpenTelemetrySinks> {
  return {
    exporter: {
      export: { fn: (info, spans) => tracing?.exportWorkflowSpans(info, spans), callDuringReplay: false },
    },
  };
}
