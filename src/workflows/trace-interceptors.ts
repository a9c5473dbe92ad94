/**
 * The workflow side of tracing: an interceptor module of the workflow bundle (see
 * `workflowInterceptorModules`) that hands a run to `@temporalio/interceptors-opentelemetry` only
 * when the run's start carried a trace context, that is, when the client that started it traces.
 *
 * Why the start's header decides, and not the worker's settings: the header is in the run's history.
 * A replay on any worker then makes the same spans and draws the same numbers from the workflow's
 * seeded randomness for their ids (the run's publish secret comes from it too), and a run started
 * without tracing adds nothing to its history: no span, no header on any command.
 *
 * Inbound messages get a span only when they carry a trace context of their own (a decision sent by
 * a tracing client does; the model activity's stream batches do not). Queries and update validators
 * never do: they run on the first execution only, not on a replay, so ids drawn there would shift
 * every id drawn after.
 */
import type {
  ActivityInput,
  ContinueAsNewInput,
  DisposeInput,
  GetLogAttributesInput,
  LocalActivityInput,
  Next,
  SignalInput,
  SignalWorkflowInput,
  StartChildWorkflowExecutionInput,
  StartNexusOperationInput,
  StartNexusOperationOutput,
  UpdateInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowInternalsInterceptor,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import type { Headers } from '@temporalio/common';
import type {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';

/**
 * The header a tracing client's start carries (`TRACE_HEADER` of @temporalio/interceptors-opentelemetry,
 * checked equal by test/unit/tracing-config.test.ts): named here, so that telling whether a run is
 * traced loads nothing of OpenTelemetry.
 */
export const TRACE_HEADER = '_tracer-data';

/**
 * The OpenTelemetry interceptors, evaluated when a run turns tracing on and not before: a run's modules
 * are its own in the workflow sandbox, and OpenTelemetry's were a third of what every run, traced or
 * not, evaluated at its start. Webpack bundles the module and evaluates it at this `require`.
 */
function openTelemetry(): typeof import('@temporalio/interceptors-opentelemetry/lib/workflow/index.js') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a synchronous, lazy import in the bundle
  return require('@temporalio/interceptors-opentelemetry/lib/workflow/index.js');
}

/** Whether this run is traced, decided once by its start; shared by the run's interceptors. */
class RunTracing {
  private otel?: {
    inbound: OpenTelemetryInboundInterceptor;
    outbound: OpenTelemetryOutboundInterceptor;
    internals: OpenTelemetryInternalsInterceptor;
  };

  /** Turns tracing on for the run; the OpenTelemetry interceptors (and their tracer) exist from then on. */
  start() {
    if (!this.otel) {
      const otel = openTelemetry();
      this.otel = {
        inbound: new otel.OpenTelemetryInboundInterceptor(),
        outbound: new otel.OpenTelemetryOutboundInterceptor(),
        internals: new otel.OpenTelemetryInternalsInterceptor(),
      };
    }
    return this.otel;
  }

  get on() {
    return this.otel;
  }
}

function carriesTrace(headers: Headers): boolean {
  return headers[TRACE_HEADER] !== undefined;
}

class TracedInbound implements WorkflowInboundCallsInterceptor {
  constructor(private readonly run: RunTracing) {}

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    if (!carriesTrace(input.headers)) return next(input);
    return this.run.start().inbound.execute(input, next);
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    const otel = this.run.on;
    return otel && carriesTrace(input.headers) ? otel.inbound.handleSignal(input, next) : next(input);
  }

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    const otel = this.run.on;
    return otel && carriesTrace(input.headers) ? otel.inbound.handleUpdate(input, next) : next(input);
  }
}

class TracedOutbound implements WorkflowOutboundCallsInterceptor {
  constructor(private readonly run: RunTracing) {}

  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) {
    return this.run.on?.outbound.scheduleActivity(input, next) ?? next(input);
  }

  scheduleLocalActivity(
    input: LocalActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ) {
    return this.run.on?.outbound.scheduleLocalActivity(input, next) ?? next(input);
  }

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ) {
    return this.run.on?.outbound.startChildWorkflowExecution(input, next) ?? next(input);
  }

  startNexusOperation(
    input: StartNexusOperationInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startNexusOperation'>,
  ): Promise<StartNexusOperationOutput> {
    return this.run.on?.outbound.startNexusOperation(input, next) ?? next(input);
  }

  continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>) {
    return this.run.on?.outbound.continueAsNew(input, next) ?? next(input);
  }

  signalWorkflow(input: SignalWorkflowInput, next: Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>) {
    return this.run.on?.outbound.signalWorkflow(input, next) ?? next(input);
  }

  getLogAttributes(input: GetLogAttributesInput, next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>) {
    return this.run.on?.outbound.getLogAttributes(input, next) ?? next(input);
  }
}

class TracedInternals implements WorkflowInternalsInterceptor {
  constructor(private readonly run: RunTracing) {}

  dispose(input: DisposeInput, next: Next<WorkflowInternalsInterceptor, 'dispose'>): void {
    const otel = this.run.on;
    // Its dispose is async in type only: it disables the run's context manager and calls `next` at once.
    if (otel) void otel.internals.dispose(input, next);
    else next(input);
  }
}

/** The interceptors of one run (Temporal calls this for every workflow it starts or replays). */
export const interceptors = (): WorkflowInterceptors => {
  const run = new RunTracing();
  return {
    inbound: [new TracedInbound(run)],
    outbound: [new TracedOutbound(run)],
    internals: [new TracedInternals(run)],
  };
};
