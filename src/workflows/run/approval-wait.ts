/**
 * A call that needs approval, past the agent's approval rules: the agent's model judge, then a person,
 * with the tool's preview where it has one. The approver sees the preview, the fingerprint they decide on
 * covers it, and it is made again once they approved: where it changed, the call waits again with both
 * shown, so it never runs on a preview nobody approved.
 */
import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { AgentActivities, ModelToolCall, ToolCallOutcome } from '../../protocol/activities.js';
import type { PreviewToolOutput } from '../../protocol/approval-activities.js';
import { deadlineFields, deadlineOf } from '../../approvals/deadline.js';
import { decidedBy, declinedOutcome, expiredMessage } from '../../approvals/decision-messages.js';
import { previewFingerprint } from '../../approvals/fingerprint.js';
import { grantDecision, grantHours, grantPolicy } from '../../approvals/grants.js';
import { judgeApplies, judgeRecord, judgeVerdict } from '../../approvals/judge.js';
import { callAccess } from '../../approvals/access.js';
import { agentRequires } from '../../approvals/policy.js';
import type { ApprovalJudge } from '../../schemas/access.js';
import type { AgentSpec, ToolSpec } from '../../schemas/agent-spec.js';
import type { DecisionRecord, PendingToolCall } from '../../schemas/decisions.js';
import { GrantSchema } from '../../schemas/grants.js';
import { safeParse } from '../../schemas/json.js';
import type { JsonValue } from '../../schemas/json.js';
import type { RunOptions } from '../../schemas/run-options.js';
import { schemaInRun } from '../../schemas/schema-patterns.js';
import { takes } from '../patches.js';
import { runCancelled } from './delegation.js';
import { refOf, waitingDisplay } from './payload-views.js';
import type { RunState } from './run-state.js';
import { activityFailureMessage } from './tool-activity.js';
import { hookInput } from './tool-hooks.js';

/** How often a preview may change after an approval before the call gives up (each round is a person's decision). */
const MAX_PREVIEW_ROUNDS = 5;

/**
 * Approved: the call to run (with changed arguments, and who changed them), and the hash of the preview
 * it was approved on; or how it ended without running.
 */
export type Approval =
  | { approved: true; call: ModelToolCall; changedBy?: string | null; previewHash?: string }
  | { approved: false; outcome: ToolCallOutcome };

/** Whether a call of the tool is previewed (a tool with a `preview`, in a run that takes them). */
function previews(tool: ToolSpec): boolean {
  return tool.kind === 'tool' && tool.preview === true && takes('previews');
}

/** Whether the agent's judge is asked about a call of the tool (in a run that takes it). */
function judges(tool: ToolSpec, spec: AgentSpec): boolean {
  const judge = spec.access?.judge;
  return judge !== undefined && judgeApplies(judge, tool.name) && takes('approvalJudge');
}

/**
 * Whether the run asks the agent's grant book about a call of the tool: the agent lets grants cover it,
 * its calls have no preview (a grant never saw one), and decisions need no signature (a grant has none).
 */
function granted(tool: ToolSpec, spec: AgentSpec): boolean {
  if (!spec.access?.grants?.tools.includes(tool.name) || spec.signedDecisions || !agentRequires(tool)) return false;
  return !(tool.kind === 'tool' && tool.preview) && takes('grants');
}

/** Whether a call needs more than a person's decision: a standing grant, a preview, or the judge's word first. */
export function beforeAPerson(tool: ToolSpec, spec: AgentSpec): boolean {
  const previewed = previews(tool);
  const judged = judges(tool, spec);
  return granted(tool, spec) || judged || previewed;
}

/**
 * Decides a call that needs approval, past the agent's rules: the judge, then a person, each bound to
 * the preview where the tool makes one.
 */
export async function approvalOf(
  tool: ToolSpec,
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
  /** A rule of the agent's said a person decides: the judge is not asked. */
  askedByRule = false,
): Promise<Approval> {
  if (granted(tool, spec) && (await grantOf(spec, options, state, call))) return { approved: true, call };
  let shown = previews(tool) ? await previewOf(spec, options, state, call) : undefined;
  if (shown && !shown.ok) return { approved: false, outcome: notRun(shown.error) };
  const judge = spec.access?.judge;
  let judged: PendingToolCall['judged'];
  if (judge && judges(tool, spec) && !askedByRule) {
    // The judge reads the call as its approver would be shown it: what a display transform hides, it never quotes.
    const ref = refOf(state.runId, spec.id, call, options.requestContext);
    const args = (await waitingDisplay(tool, ref, { kind: 'approval', args: call.args })).display?.args ?? call.args;
    const answer = await askJudge(judge, spec, state, { ...call, args }, shown?.preview);
    const quorum = callAccess(spec.access, call.toolName, 'approval').quorum !== undefined;
    const verdict = judgeVerdict(judge, answer, agentRequires(tool), quorum);
    if (verdict.verdict === 'ask') judged = { version: judge.version, reason: verdict.reason };
    else {
      const record = judgeRecord(judge, { ...verdict, verdict: verdict.verdict }, call, new Date().toISOString());
      state.apply(state.ledger.settled(call, record));
      if (verdict.verdict === 'deny') return refused(spec, call, record);
      return { approved: true, call, ...(shown ? { previewHash: shown.hash } : {}) };
    }
  }
  let current = call;
  let changedBy: string | null | undefined;
  let previous: PendingToolCall['preview'];
  for (let round = 1; ; round++) {
    const preview = shown ? { value: shown.preview, hash: shown.hash, ...(previous ? { previous } : {}) } : undefined;
    const bound = shown ? { ...current, fingerprint: previewFingerprint(current.fingerprint, shown.hash) } : current;
    const { kind, record, decision, askedAt } = await askPerson(tool, spec, options, state, bound, { preview, judged });
    if (kind === 'decline') return refused(spec, call, record);
    // Nobody decided in time: the call did not run, and the model hears that it expired (not that it was declined).
    if (kind === 'expire') {
      return { approved: false, outcome: { type: 'error', error: expiredMessage(call.toolName, askedAt, record.at) } };
    }
    // Changed arguments (the trail may only mention large ones; the decision has them whole). A preview's
    // next round is bound to their fingerprint; elsewhere the call keeps the model's, as it always did.
    if (record.approved && decision.args !== undefined) {
      const fingerprint = shown ? record.approved.fingerprint : current.fingerprint;
      current = { ...current, args: decision.args, fingerprint };
      changedBy = decidedBy(record);
    }
    const changed = changedBy !== undefined ? { changedBy } : {};
    if (!shown) return { approved: true, call: current, ...changed };
    const again = await previewOf(spec, options, state, current);
    if (!again.ok) return { approved: false, outcome: notRun(again.error) };
    if (again.hash === shown.hash) return { approved: true, call: current, previewHash: again.hash, ...changed };
    if (round >= MAX_PREVIEW_ROUNDS) {
      const error = `the preview of tool "${call.toolName}" changed after each of ${round} approvals`;
      return { approved: false, outcome: notRun(error) };
    }
    previous = { value: shown.preview, hash: shown.hash };
    shown = again;
  }
}

/** A person's decision on the call, as it is shown to them (with its preview, and the judge's word). */
async function askPerson(
  tool: ToolSpec,
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
  shown: Pick<PendingToolCall, 'preview' | 'judged'>,
) {
  const ref = refOf(state.runId, spec.id, call, options.requestContext);
  // Asked before the display is made (as runs recorded before deadlines did): the deadline counts from here.
  const askedAt = new Date().toISOString();
  const waiting = {
    kind: 'approval' as const,
    askedAt,
    inputSchema: schemaForDecisions(tool),
    ...(await waitingDisplay(tool, ref, { kind: 'approval', args: call.args })),
    ...deadlineFields(askedAt, deadlineOf(tool, spec)),
    ...(shown.preview ? { preview: shown.preview } : {}),
    ...(shown.judged ? { judged: shown.judged } : {}),
    ...(granted(tool, spec) ? { grantable: { maxHours: grantHours(spec.access) } } : {}),
  };
  return { ...(await state.waits.forDecision(call, waiting)), askedAt };
}

/**
 * The schema changed arguments are checked against, by the client and the run: an outside tool's (a
 * client tool's, an MCP server's) without its patterns, which run where the tool runs.
 */
export function schemaForDecisions(tool: ToolSpec): ToolSpec['inputSchema'] {
  const outside = tool.kind === 'client' || (tool.kind === 'tool' && tool.mcpServer !== undefined);
  return outside ? schemaInRun(tool.inputSchema, () => takes('boundedSchemaChecks')) : tool.inputSchema;
}

function refused(spec: AgentSpec, call: ModelToolCall, record: DecisionRecord): Approval {
  return {
    approved: false,
    outcome: declinedOutcome(spec.declineMessage, call.toolName, decidedBy(record), record.reason),
  };
}

function notRun(error: string): ToolCallOutcome {
  return { type: 'error', error: `${error}; the call did not run` };
}

/** The tool's preview of the call; a preview the worker could not make is none (the call does not run). */
async function previewOf(
  spec: AgentSpec,
  options: RunOptions,
  state: RunState,
  call: ModelToolCall,
): Promise<PreviewToolOutput> {
  const { previewTool } = proxyActivities<AgentActivities>({
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 3 },
  });
  try {
    return await previewTool(hookInput(spec, options, state, call));
  } catch (err) {
    if (!(err instanceof ActivityFailure) || runCancelled()) throw err;
    return {
      ok: false,
      error: `the preview of tool "${call.toolName}" could not be made: ${activityFailureMessage(err)}`,
    };
  }
}

/**
 * Whether a standing grant approves the call: the book's grant, checked again here against the agent's
 * policy (its creator must be able to approve this call now), recorded as its creator's approval.
 */
async function grantOf(spec: AgentSpec, options: RunOptions, state: RunState, call: ModelToolCall): Promise<boolean> {
  // A book that does not answer soon (its worker is down) holds nobody up for long: a person decides.
  const { useGrant } = proxyActivities<AgentActivities>({
    startToCloseTimeout: '10 seconds',
    scheduleToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 3 },
  });
  const { toolCallId, toolName, args } = call;
  const { threadId, resourceId } = options;
  const where = { ...(threadId ? { threadId } : {}), ...(resourceId ? { resourceId } : {}) };
  let grant;
  try {
    grant = await useGrant({
      agentId: spec.id,
      runId: state.runId,
      toolCallId,
      toolName,
      fingerprint: call.fingerprint,
      args,
      policy: grantPolicy(spec.access, toolName),
      ...(state.setup.access.startedBy ? { startedBy: state.setup.access.startedBy } : {}),
      ...where,
    });
  } catch (err) {
    // A book that cannot be asked approves nothing: a person decides.
    if (!(err instanceof ActivityFailure) || runCancelled()) throw err;
    return false;
  }
  // What the book said is checked like anything sent to the run: a grant of another shape approves nothing.
  const checked = grant ? safeParse(GrantSchema, grant) : undefined;
  if (!checked?.success) return false;
  grant = checked.data;
  const run = { resourceId, startedBy: state.setup.access.startedBy };
  const at = new Date().toISOString();
  const verdict = grantDecision(
    grant,
    { ...call, runId: state.runId, threadId },
    { agentId: spec.id, resourceId },
    spec.access,
    run,
    at,
  );
  if (!verdict.ok) return false;
  state.apply(state.ledger.settled(call, verdict.record));
  state.stream.publish({
    type: 'tool-call-granted',
    toolCallId,
    toolName,
    grantId: grant.grantId,
    by: verdict.record.principal?.name ?? grant.createdBy.id,
  });
  return true;
}

/** The judge's answer; one that failed or took too long is no verdict (a person decides then). */
async function askJudge(
  judge: ApprovalJudge,
  spec: AgentSpec,
  state: RunState,
  call: ModelToolCall,
  preview: JsonValue | undefined,
) {
  const seconds = judge.timeoutSeconds ?? 30;
  const { judgeCall } = proxyActivities<AgentActivities>({
    startToCloseTimeout: `${seconds} seconds`,
    scheduleToCloseTimeout: `${seconds} seconds`,
    retry: { maximumAttempts: 2, nonRetryableErrorTypes: ['ModelCallFailed'] },
  });
  try {
    const input = {
      runId: state.runId,
      agentId: spec.id,
      version: judge.version,
      toolName: call.toolName,
      args: call.args,
    };
    return await judgeCall({ ...input, ...(preview !== undefined ? { preview } : {}) });
  } catch (err) {
    if (!(err instanceof ActivityFailure) || runCancelled()) throw err;
    return { failed: activityFailureMessage(err) };
  }
}
