/**
 * OpenTelemetry tracing of runs: one trace per run, from the client's start through the workflow, its
 * activities, the AI SDK's model calls and the run's tool calls (spans.ts, in the workflow). The
 * Temporal side is `@temporalio/interceptors-opentelemetry`; this module gives it a tracer of its own
 * (no global tracer provider is registered), a workflow span sink that passes on no payload, and
 * activity spans that record no tool's error message.
 */
import {
  context,
  createContextKey,
  createTraceState,
  propagation,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type Tracer,
} from '@opentelemetry/api';
import { OpenTelemetry } from '@ai-sdk/otel';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor, WorkflowQueryInput, Next, WorkflowDescribeInput } from '@temporalio/client';
import type { Context as ActivityContext } from '@temporalio/activity';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';
import {
  extractContextFromHeaders,
  RUN_ID_ATTR_KEY,
  TRACE_HEADER,
  WORKFLOW_ID_ATTR_KEY,
} from '@temporalio/interceptors-opentelemetry/lib/instrumentation.js';
import { OpenTelemetryActivityInboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import type { SerializableSpan } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import type { ActivityExecuteInput, ActivityInterceptors, WorkerInterceptors } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { TelemetryOptions } from 'ai';

/** The options of {@link createTracing}. */
export interface TracingOptions {
  /**
   * Where finished spans go: a `BatchSpanProcessor` over an exporter in production, a
   * `SimpleSpanProcessor` over an `InMemorySpanExporter` in tests.
   */
  spanProcessor: SpanProcessor;
  /** The `service.name` of every span this process reports; default `OTEL_SERVICE_NAME`, else `durable-agents`. */
  serviceName?: string;
}

/**
 * The activities whose inputs or failures carry a tool's payloads (arguments, outputs, its own error
 * messages, which a display transform may hide): their spans record that they failed, never the message.
 */
const PAYLOAD_ACTIVITIES = new Set(['executeTool', 'transformPayload', 'shapeOutput', 'toolCallHook']);

/**
 * One process's tracing: a tracer provider of its own over a span processor. Give the same object to
 * `createWorker({ tracing })` and `AgentClient.connect({ tracing })` in one process, or one each.
 */
export class Tracing {
  /** The tracer of every span this process opens (client, activities, model calls). */
  readonly tracer: Tracer;
  readonly resource: Resource;
  private readonly provider: BasicTracerProvider;
  private readonly modelIntegration: OpenTelemetry;

  constructor(private readonly options: TracingOptions) {
    const serviceName = options.serviceName ?? process.env.OTEL_SERVICE_NAME ?? 'durable-agents';
    // The workflow's spans are given this resource as it is, so it carries the SDK's defaults itself.
    this.resource = Resource.default()
      .merge(envDetectorSync.detect())
      .merge(new Resource({ 'service.name': serviceName }));
    this.provider = new BasicTracerProvider({
      resource: this.resource,
      mergeResourceWithDefaults: false,
      spanProcessors: [options.spanProcessor],
    });
    this.tracer = this.provider.getTracer('durable-agents');
    this.modelIntegration = new OpenTelemetry({ tracer: this.tracer, agentSpanName: 'functionId' });
    installContextAndPropagation();
  }

  /** The client interceptor: `start` opens the run's trace, and the workflow continues it. */
  clientInterceptor(): WorkflowClientInterceptor {
    return new RunClientInterceptor({ tracer: this.tracer });
  }

  /** The worker's interceptors: a span per activity of a traced run (the workflow's are in its bundle). */
  workerInterceptors(): Pick<WorkerInterceptors, 'activity'> {
    return { activity: [(ctx) => activityInterceptors(ctx, this.tracer)] };
  }

  /** Exports the spans a traced run's workflow made (through the workflow span sink). */
  exportWorkflowSpans(info: WorkflowInfo, spans: SerializableSpan[]): void {
    for (const span of spans) this.options.spanProcessor.onEnd(readableSpan(span, info, this.resource));
  }

  /**
   * The AI SDK telemetry of one model call of a traced run (none outside one): GenAI spans with the
   * model, token usage and finish reason. Prompts and completions are not recorded: they hold the
   * tools' arguments and outputs in the form the model sees, not the form display transforms make.
   */
  modelTelemetry(agentId: string): TelemetryOptions | undefined {
    if (!trace.getActiveSpan()) return undefined;
    return {
      isEnabled: true,
      functionId: agentId,
      recordInputs: false,
      recordOutputs: false,
      integrations: this.modelIntegration,
    };
  }

  /** Sends the spans not sent yet. */
  async forceFlush(): Promise<void> {
    await this.provider.forceFlush();
  }

  /** Sends the spans not sent yet and stops. */
  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}

/** Tracing over a span processor (or an exporter, batched). */
export function createTracing(options: TracingOptions | { exporter: SpanExporter; serviceName?: string }): Tracing {
  if ('spanProcessor' in options) return new Tracing(options);
  return new Tracing({ spanProcessor: new BatchSpanProcessor(options.exporter), serviceName: options.serviceName });
}

/** Tracing to the OTLP endpoint the environment names (the exporters read it), batched. */
/** How spans are sent: OTLP over HTTP, as protobuf (OpenTelemetry's default) or JSON. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export function otlpTracing(protocol: OtlpProtocol, serviceName: string): Tracing {
  const exporter = protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  return createTracing({ exporter, serviceName });
}

/**
 * The client interceptor of `@temporalio/interceptors-opentelemetry`, without spans for queries and
 * describes: a streaming reader queries its run every 20 ms, and each would be a trace of its own.
 */
class RunClientInterceptor extends OpenTelemetryWorkflowClientInterceptor {
  override query(input: WorkflowQueryInput, next: Next<WorkflowClientInterceptor, 'query'>): Promise<unknown> {
    return next(input);
  }

  override describe(input: WorkflowDescribeInput, next: Next<WorkflowClientInterceptor, 'describe'>) {
    return next(input);
  }
}

/** Activity spans, for activities of traced runs only: one without a trace context would start a trace of its own. */
function activityInterceptors(ctx: ActivityContext, tracer: Tracer): ActivityInterceptors {
  const otel = new OpenTelemetryActivityInboundInterceptor(ctx, { tracer });
  const { activityType } = ctx.info;
  return {
    inbound: {
      execute: (input, next) => {
        const parent = input.headers[TRACE_HEADER] === undefined ? undefined : extractContextFromHeaders(input.headers);
        if (!parent) return next(input);
        if (!PAYLOAD_ACTIVITIES.has(activityType)) return otel.execute(input, next);
        return withoutFailureMessage(ctx, tracer, parent, input, next);
      },
    },
  };
}

/** The span of an activity that handles a tool's payloads: on a failure, its type, not its message. */
function withoutFailureMessage(
  ctx: ActivityContext,
  tracer: Tracer,
  parent: Context,
  input: ActivityExecuteInput,
  next: (input: ActivityExecuteInput) => Promise<unknown>,
): Promise<unknown> {
  const { activityType, activityId, workflowExecution } = ctx.info;
  const attributes = {
    temporalActivityId: activityId,
    ...(workflowExecution
      ? { [WORKFLOW_ID_ATTR_KEY]: workflowExecution.workflowId, [RUN_ID_ATTR_KEY]: workflowExecution.runId }
      : {}),
  };
  return tracer.startActiveSpan(`RunActivity:${activityType}`, { attributes }, parent, async (span) => {
    try {
      const result = await next(input);
      span.setStatus({ code: SpanStatusCode.OK });
      return result;
    } catch (err) {
      const type = err instanceof Error ? err.name : 'thrown';
      span.setStatus({ code: SpanStatusCode.ERROR, message: `${activityType} failed (${type})` });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** A span from the workflow, with the run's ids: not the rest of its info, whose memo holds raw arguments. */
function readableSpan(span: SerializableSpan, info: WorkflowInfo, resource: Resource): ReadableSpan {
  const { spanContext, ...rest } = span;
  const { traceState, ...ids } = spanContext;
  const restored = { ...ids, ...(traceState ? { traceState: createTraceState(traceState) } : {}) };
  return {
    ...rest,
    attributes: { ...span.attributes, [WORKFLOW_ID_ATTR_KEY]: info.workflowId, [RUN_ID_ATTR_KEY]: info.runId },
    spanContext: () => restored,
    resource,
  };
}

let installed = false;

/**
 * The process-wide pieces the Temporal interceptors and the AI SDK rely on, installed only where the
 * process has none: a context manager (so a model call's spans nest in its activity's span) and the
 * W3C trace-context propagator (which writes the `_tracer-data` header the workflow reads).
 */
function installContextAndPropagation(): void {
  if (installed) return;
  installed = true;
  const probe = createContextKey('durable-agents.probe');
  const marked = ROOT_CONTEXT.setValue(probe, true);
  if (context.with(marked, () => context.active().getValue(probe)) !== true) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  }
  const carrier: Record<string, string> = {};
  const sampled = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '1'.repeat(32),
    spanId: '1'.repeat(16),
    traceFlags: TraceFlags.SAMPLED,
  });
  propagation.inject(sampled, carrier);
  if (carrier.traceparent === undefined) propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}
