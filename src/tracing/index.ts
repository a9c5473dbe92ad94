/**
 * `durable-agents/tracing`: OpenTelemetry tracing of runs. A subpath of its own, so that a process
 * that does not trace never loads OpenTelemetry (the main entry's `tracingFromEnv` loads it on demand).
 */
export { createTracing, otlpTracing, Tracing } from './tracing.js';
export type { TracingOptions } from './tracing.js';
export { otlpFromEnv, tracingFromEnv, TracingConfigError } from './config.js';
export type { OtlpProtocol } from './config.js';
