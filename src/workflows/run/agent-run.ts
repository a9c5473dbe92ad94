/**
 * One agent run, as one Temporal workflow: describe the agent, then call the model and run the
 * tools it asks for, step by step, until the model stops or the step limit is reached. A tool call
 * that needs approval, or a tool that suspends, makes the run wait for a decision signal.
 *
 * Deterministic orchestration only: every model call and tool execution is an activity.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  workflowInfo,
} from '@temporalio/workflow';
import { errorMessage } from '../../errors.js';
import type { AgentSpec } from '../../schemas/agent-spec.js';
import { safeParse } from '../../schemas/json.js';
import { RunInputSchema, type RunInput } from '../../schemas/run-input.js';
import { DEFAULT_MAX_STEPS } from '../../schemas/run-options.js';
import type { StoredRunResult } from '../../schemas/run-result.js';
import { finishChunk } from '../../schemas/stream-chunks.js';
import type { TurnStatus } from '../../schemas/thread.js';
import { legacyRunInput } from '../stream/legacy-stream.js';
import { offeredOnThread, workingMemoryOf } from '../thread/working-memory.js';
import { continueRun } from './continue-run.js';
import { runCancelled } from './delegation.js';
import { gracePeriod } from './grace-period.js';
import { joinThread } from './join-thread.js';
import { serveRun } from './run-handlers.js';
import { startRun } from './run-start.js';
import { RunState } from './run-state.js';
import { runStep } from './run-step.js';
import { activityFailureMessage } from './tool-activity.js';
import { offeredTools } from './transcript.js';

/** The run workflow. Its result is the run's result; a run that cannot go on fails with a reason. */
export async function agentRun(rawInput: RunInput): Promise<StoredRunResult> {
  const runId = workflowInfo().workflowId;
  // A run started before the stream was guarded replays as it ran (see legacy-stream.ts).
  const parsed = safeParse(RunInputSchema, legacyRunInput(rawInput));
  const input = parsed.success ? parsed.data : undefined;
  const state = new RunState(
    runId,
    input?.agentId ?? String(rawInput?.agentId),
    input?.messages ?? [],
    input?.parent,
    input?.carry,
  );
  serveRun(state, input);

  state.stream.graceMs = input?.stream?.graceMs ?? 0;
  let outcome: { result: StoredRunResult } | { failure: unknown };
  try {
    if (!parsed.success) throw ApplicationFailure.nonRetryable(`Invalid run input: ${parsed.error}`, 'InvalidRunInput');
    const result = await run(parsed.data, state);
    // A sub-agent's progress is all in the streamed run before its result is.
    if (state.stream.progress?.sends) await state.stream.progress.sent();
    if ('continueWith' in result) return continueRun(state, parsed.data, result.continueWith);
    await endTurn(state, 'completed');
    state.finish('completed');
    state.stream.publish(finishChunk(result, []));
    outcome = { result };
  } catch (err) {
    // A message taken from here on would never be shown.
    state.messages.close('RunNotWorking', `run ${state.runId} has ended: start a new run`);
    // A cancelled run (or a cancelled parent) ends as cancelled, which also cancels its sub-agents.
    const cancelled = runCancelled() && isCancellation(err);
    const failure = cancelled ? err : runFailure(err);
    await endTurn(state, cancelled ? 'cancelled' : 'failed');
    state.finish(cancelled ? 'cancelled' : 'failed');
    const error = failure instanceof Error ? failure.message : 'the run was cancelled';
    const failureType = failure instanceof ApplicationFailure ? (failure.type ?? undefined) : 'Cancelled';
    state.stream.publish({ type: 'error', error, ...(failureType ? { failureType } : {}) });
    outcome = { failure };
  }
  // Readers read the stream from the open workflow; keep it open a while for those still reading.
  if (state.stream.graceMs > 0 && 'result' in outcome) await gracePeriod(state.stream.graceMs);
  await CancellationScope.nonCancellable(async () => {
    state.stream.log.draining = true;
    await state.notices.delivered();
    await condition(allHandlersFinished);
  });
  state.writes.flush();
  if ('failure' in outcome) throw outcome.failure;
  return outcome.result;
}

/**
 * The run's turn is recorded on its thread however it ended, before its end is visible: whoever
 * starts the next run on the thread once this one returned finds the turn there.
 */
async function endTurn(state: RunState, status: TurnStatus): Promise<void> {
  if (state.thread) await CancellationScope.nonCancellable(() => state.recordTurn(status));
}

/** The steps of the run; it continues as new (between steps) when its history has grown long. */
async function run(input: RunInput, state: RunState): Promise<StoredRunResult | { continueWith: AgentSpec }> {
  const started = await startRun(input, state);
  const { spec, options, threadMemory } = started;
  state.govern(spec, input.startedBy, options.resourceId);
  if (started.toolRun)
    state.messages.close('RunNotWorking', `run ${state.runId} runs one tool: no model reads messages`);
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const streaming = input.stream !== undefined;
  if (input.carry) state.announce();
  else state.stream.publish({ type: 'start', runId: state.runId, agentId: spec.id, resumed: false });
  await joinThread(input, options, state, spec, threadMemory);
  if (state.thread?.records) {
    const settings = {
      suspensions: options.autoResumeSuspendedTools === true,
      approvals: options.autoResumeApprovals === true,
    };
    // Who sends a message decides as by hand: checked against the run's tenant and starter.
    const run = { resourceId: options.resourceId, startedBy: input.startedBy };
    state.autoResume = { settings, model: options.model ?? spec.model, run };
  }
  const tools = offeredOnThread(offeredTools(spec, options.activeTools), spec, state.thread?.records === true);
  const workingMemory = state.thread?.records ? workingMemoryOf(spec) : undefined;
  const offer = { tools, workingMemory, streaming };
  const firstStep = state.conversation.steps.length;

  for (let stepNumber = firstStep; stepNumber < maxSteps; stepNumber++) {
    // Messages sent while the last step worked join the conversation first: a new history carries them.
    state.takeMessages();
    if (stepNumber === maxSteps - 1) {
      state.messages.close(
        'LastStep',
        `run ${state.runId} takes its last step (maxSteps ${maxSteps}): start a new run`,
      );
    }
    // Between steps nothing waits and no child runs: the one safe point to start a fresh history.
    const stepsHere = stepNumber - firstStep;
    const every = options.continueAsNewEvery;
    if (stepsHere > 0 && (workflowInfo().continueAsNewSuggested || (every !== undefined && stepsHere >= every))) {
      state.messages.close('RunNotWorking', `run ${state.runId} hands over to a new run: send it again in a moment`);
      return { continueWith: started.agentSpec };
    }
    // A model that stopped while messages came answers them in one more step.
    if ((await runStep(started, offer, stepNumber)) && !state.messages.waiting) break;
  }
  state.messages.close('RunNotWorking', `run ${state.runId} has taken its last step: start a new run`);
  // A tool run ends with its call's outcome: no model answers it, so it owes no object.
  state.objectDue = options.structuredOutput !== undefined && started.toolRun === undefined;
  return state.snapshot().result;
}

/** Turns whatever stopped the run into a workflow failure that names the cause. */
function runFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof ActivityFailure) {
    const cause = err.cause;
    const type = cause instanceof ApplicationFailure ? cause.type : undefined;
    return ApplicationFailure.nonRetryable(activityFailureMessage(err), type ?? 'ActivityFailed');
  }
  return ApplicationFailure.nonRetryable(errorMessage(err), 'RunFailed');
}
