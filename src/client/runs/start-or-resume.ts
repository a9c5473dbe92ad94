/**
 * A message to an agent, as `start`, `stream` and `generate` send it: on a thread whose run of the
 * agent waits on a call the message may decide (`autoResumeSuspendedTools`), it resumes that run;
 * else it starts a new one.
 */
import { withObject } from './structured-result.js';
import type { OutputSchema, StructuredObject } from '../../structured-output.js';
import type { RunResult } from '../../schemas/run-result.js';
import type { ClientActor, ClientContext } from '../context.js';
import { autoResumeOnThread, type AutoResumed } from '../decisions/auto-resume.js';
import { nextResult } from '../decisions/waiting.js';
import { principalOf } from '../identity.js';
import { RunStream } from '../stream/run-stream.js';
import { buildRunInput, streamGrace, type RunPrompt, type StartOptions, type StreamOptions } from './run-input.js';
import { startRun, startRunWaiting } from './start-run.js';

/**
 * Auto-resume: the message goes to the thread's waiting run when it may decide one of its calls
 * (see `autoResumeOnThread`); `undefined` when a new run is to start.
 */
async function autoResume(
  ctx: ClientContext,
  actor: ClientActor,
  agentId: string,
  prompt: RunPrompt,
  options: StartOptions,
  streamGraceMs?: number,
): Promise<AutoResumed | undefined> {
  if (!options.threadId || options.autoResumeSuspendedTools === false) return undefined;
  const { runId: _runId, principal: who, ...runOptions } = options;
  // Checked as a new run's input would be; warnings are the new run's to give, if one starts.
  const input = buildRunInput(agentId, prompt, runOptions, () => undefined);
  const principal = principalOf(who ?? actor.principal, ctx.temporal.options.identity);
  return autoResumeOnThread(ctx, input, principal, streamGraceMs);
}

/** The run the message resumed, or the one it started, without waiting. */
export async function startOrResume(
  ctx: ClientContext,
  actor: ClientActor,
  agentId: string,
  prompt: RunPrompt,
  options: StartOptions,
): Promise<{ runId: string }> {
  const resumed = await autoResume(ctx, actor, agentId, prompt, options);
  if (resumed) return { runId: resumed.runId };
  return startRun(ctx, { agentId, prompt, options, principal: actor.principal, warn: actor.warn });
}

/** The stream of the run the message resumed (from where it stood) or started. */
export async function streamOrResume<S extends OutputSchema = never>(
  ctx: ClientContext,
  actor: ClientActor,
  agentId: string,
  prompt: RunPrompt,
  options: StreamOptions<S>,
): Promise<RunStream<StructuredObject<S>>> {
  const { streamGraceMs, ...startOptions } = options;
  const resumed = await autoResume(ctx, actor, agentId, prompt, startOptions, streamGrace(streamGraceMs));
  if (resumed) return new RunStream(ctx, resumed.runId, resumed.fromOffset ?? 0, options.structuredOutput);
  const { runId } = await startRun(ctx, {
    agentId,
    prompt,
    options: startOptions,
    stream: { graceMs: streamGrace(streamGraceMs) },
    principal: actor.principal,
    warn: actor.warn,
  });
  return new RunStream(ctx, runId, 0, options.structuredOutput);
}

/** The next result of the run the message resumed or started: final, or its next pause. */
export async function generateOrResume<S extends OutputSchema = never>(
  ctx: ClientContext,
  actor: ClientActor,
  agentId: string,
  prompt: RunPrompt,
  options: StartOptions<S>,
): Promise<RunResult<StructuredObject<S>>> {
  const resumed = await autoResume(ctx, actor, agentId, prompt, options);
  if (resumed)
    return withObject(
      await nextResult(ctx, resumed.runId, { decisionId: resumed.decisionId }),
      options.structuredOutput,
    );
  const { runId, pause } = await startRunWaiting(ctx, {
    agentId,
    prompt,
    options,
    principal: actor.principal,
    warn: actor.warn,
  });
  return withObject(await nextResult(ctx, runId, {}, pause), options.structuredOutput);
}
