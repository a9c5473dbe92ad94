/** How agentctl prints runs, pending calls and results for people. */
import type { Principal } from '../schemas/access.js';
import type { DecisionRecord, PendingToolCall } from '../schemas/decisions.js';
import type { JsonValue } from '../schemas/json.js';
import type { RunResult } from '../schemas/run-result.js';
import type { ToolInfo } from '../schemas/tool-info.js';
import type { BuildInfo } from '../client/runs/builds.js';
import type { RunBuild } from '../client/runs/run-build.js';
import type { RunInfo } from '../client/runs/runs.js';
import type { ModelStepRetry } from '../client/runs/model-step.js';
import { shownPending } from '../schemas/shown-pending.js';
import { MODEL_STEP_TOOL } from '../schemas/model-step.js';
import { truncate } from '../schemas/safe-parse.js';

/** A waiting call as an operator sees it: in the display form the run's stream shows, never the raw values. */
export function pendingLine(waiting: PendingToolCall): string {
  const p = shownPending(waiting);
  const what = {
    approval: `awaits approval${waiting.quorum ? ` (${quorumLine(waiting.quorum)})` : ''}`,
    suspend: `suspended${p.suspendPayload !== undefined ? ` with ${JSON.stringify(p.suspendPayload)}` : ''}`,
    client: 'awaits a client result',
    uncertain: `uncertain (${p.uncertainty ?? 'cut off'}): resolve it`,
  }[p.kind];
  const where = p.path.length ? `  in ${p.path.map((h) => `${h.agentId} ${h.runId}`).join(' > ')}` : '';
  const call = `${p.toolName}(${JSON.stringify(p.args)})`;
  return `${p.toolCallId}  ${call}  ${what}  fingerprint ${p.fingerprint}  since ${p.askedAt}${where}`;
}

export function resultLines(result: RunResult): string[] {
  const lines = [
    `run ${result.runId}: ${result.finishReason === 'suspended' ? 'suspended' : `finished (${result.finishReason})`}`,
  ];
  if (result.text) lines.push(`text: ${result.text}`);
  lines.push(...objectLines(result));
  for (const p of result.pendingToolCalls) lines.push(`pending: ${pendingLine(p)}`);
  return lines;
}

/** A retried model step in a list: the attempt, when the next one starts, and the last failure, clipped. */
export function retryCell(retry: ModelStepRetry | undefined): string {
  if (!retry) return '-';
  const next = retry.nextAttemptAt ? `, next ${retry.nextAttemptAt.toISOString()}` : '';
  // safe-parse, not limits: agentctl's --help loads this file, and must not load zod.
  return `attempt ${retry.attempt}${next}: ${truncate((retry.lastFailure ?? 'unknown').replace(/\s+/g, ' '), 120)}`;
}

/** A finished run's structured output: its object, or why it has none. */
export function objectLines(result: Pick<RunResult, 'object' | 'objectError'>): string[] {
  if (result.objectError !== undefined) return [`object: none: ${result.objectError}`];
  return result.object === undefined ? [] : [`object: ${JSON.stringify(result.object)}`];
}

export function runLines(run: RunInfo): string[] {
  const lines = [
    `run:       ${run.runId}`,
    `agent:     ${run.agentId ?? '-'}`,
    `status:    ${run.status} (workflow ${run.workflowStatus})`,
    `thread:    ${run.threadId ?? '-'}   resource: ${run.resourceId ?? '-'}`,
    `started:   ${run.startTime.toISOString()}${run.closeTime ? `   closed: ${run.closeTime.toISOString()}` : ''}` +
      (run.startedBy ? `   by ${principalLine(run.startedBy)}` : ''),
    `build:     ${buildLine(run.build)}`,
  ];
  const retry = run.modelRetry;
  if (retry) {
    const next = retry.nextAttemptAt ? `next at ${retry.nextAttemptAt.toISOString()}` : 'running';
    const ends = retry.windowEndsAt ? `, retried until ${retry.windowEndsAt.toISOString()}` : '';
    lines.push(`model step: retrying, attempt ${retry.attempt} (${next}${ends})`);
    lines.push(`  last failure: ${retry.lastFailure ?? 'unknown'}`);
  }
  for (const f of run.modelFallbacks ?? []) lines.push(`model step ${f.stepNumber}: answered by fallback ${f.model}`);
  lines.push(`pending tool calls: ${run.pendingToolCalls.length === 0 ? 'none' : ''}`);
  for (const p of run.pendingToolCalls) lines.push(`  ${pendingLine(p)}`);
  lines.push(`decisions: ${run.decisions.length === 0 ? 'none' : ''}`);
  for (const d of run.decisions) lines.push(`  ${decisionLine(d)}`);
  const { count, recent } = run.refusals;
  if (count > 0) {
    const older = count - recent.length;
    lines.push(`refused decisions: ${count}${older > 0 ? ` (the last ${recent.length} shown)` : ''}`);
    for (const d of recent) lines.push(`  ${decisionLine(d)}`);
  }
  return lines;
}

/** The build a run is on: `<deployment>/<build id> (pinned)`, or `unversioned`. */
export function buildLine(build: RunBuild | undefined): string {
  if (!build) return 'unversioned';
  const how = build.pinnedByOverride ? 'pinned by override' : (build.behavior?.toLowerCase().replace('_', '-') ?? '?');
  return `${build.deploymentName}/${build.buildId} (${how})`;
}

/** The builds of the Worker Deployments, and what still needs each. */
export function buildsTable(builds: BuildInfo[]): string[] {
  if (builds.length === 0) return ['no worker deployments'];
  const rows = builds.map((b) => [
    b.deploymentName,
    b.buildId,
    b.status,
    String(b.pinned.running),
    String(b.pinned.waiting),
    String(b.autoUpgrade),
    b.retirable ? 'yes' : 'no',
  ]);
  return table([
    ['DEPLOYMENT', 'BUILD', 'STATUS', 'PINNED RUNNING', 'PINNED WAITING', 'AUTO-UPGRADE', 'RETIRE'],
    ...rows,
  ]);
}

/** Who, as the trail shows them: the principal and how it was established. */
export function principalLine(p: Principal): string {
  return `${p.name ? `${p.name} <${p.id}>` : p.id}${p.via ? ` via ${p.via}` : ''}`;
}

/** One decision of the trail, on one line, whatever its fields hold. */
export function decisionLine(d: DecisionRecord): string {
  const verdict = d.accepted ? 'accepted' : `REFUSED (${d.refusal?.type}): ${d.refusal?.message}`;
  // A raw signal that names no principal says only what its note claims.
  const who = d.principal ? principalLine(d.principal) : 'no principal';
  const note = d.by ? ` note ${JSON.stringify(d.by)}` : '';
  const why = d.reason ? ` reason ${JSON.stringify(d.reason)}` : '';
  const edited = d.approved ? ` with changed arguments ${JSON.stringify(d.approved.args)}` : '';
  const call = `${d.toolCallId ?? '?'}${d.toolName ? ` (${d.toolName})` : ''}`;
  const sent = d.sentAt ? ` (sent ${d.sentAt})` : '';
  return `${d.at}${sent}  ${d.kind} ${call}${edited} by ${who}${note}${why}: ${verdict}`.replace(/\s*\n\s*/g, ' ');
}

export function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
}

/** The tools as a table: id, kind, approval, the agents that have them (and their names there), description. */
export function toolsTable(tools: ToolInfo[]): string[] {
  if (tools.length === 0) return ['no tools'];
  const rows = tools.map((t) => [
    t.id,
    t.kind,
    approvalSummary(t),
    t.agents.map((a) => `${a.agentId}/${a.toolName}${a.offered ? '' : ' (not offered)'}`).join(','),
    oneLineText(t.description, 60),
  ]);
  return table([['TOOL', 'KIND', 'APPROVAL', 'AGENTS', 'DESCRIPTION'], ...rows]);
}

/** Whether calls wait for approval: by the tool's own flag, by some agents' policy, or not. */
function approvalSummary(tool: ToolInfo): string {
  if (tool.requireApproval) return 'required';
  const by = tool.agents.filter((a) => a.approval.required).map((a) => a.agentId);
  if (by.length === 0) return 'no';
  return by.length === tool.agents.length ? 'required (agent)' : `on ${by.join(',')}`;
}

const CLIENT_TOOL = 'client tool (no execute: the caller supplies its result; it cannot be run)';

/** One tool, for people: what it is, each agent's policy for it, and its schemas. */
export function toolLines(tool: ToolInfo): string[] {
  const lines = [
    `tool:         ${tool.id}`,
    `description:  ${oneLineText(tool.description, 200)}`,
    `kind:         ${tool.kind === 'tool' ? 'runs on the worker' : CLIENT_TOOL}`,
    `approval:     ${tool.requireApproval ? 'the tool requires it' : 'not by the tool'}`,
    `idempotent:   ${tool.idempotent ? 'yes' : 'no (an approved call runs at most once)'}`,
    'agents:',
  ];
  for (const a of tool.agents) {
    const by = a.approval.by === 'tool' ? 'the tool' : 'the agent, for every call';
    const starter = a.selfApproval ? '' : ", not the run's starter";
    const deciders = `${a.decide?.join(', ') || 'anyone the agent lets in'}${starter}`;
    const approval = a.approval.required ? `approval required (by ${by}); decided by ${deciders}` : 'no approval';
    lines.push(
      `  ${a.agentId} as "${a.toolName}": ${approval}${a.offered ? '' : '; not offered to runs (activeTools)'}`,
    );
  }
  lines.push(
    'input schema:',
    ...JSON.stringify(tool.inputSchema, null, 2)
      .split('\n')
      .map((l) => `  ${l}`),
  );
  if (tool.outputSchema) {
    lines.push(
      'output schema:',
      ...JSON.stringify(tool.outputSchema, null, 2)
        .split('\n')
        .map((l) => `  ${l}`),
    );
  }
  if (tool.resumeSchema) {
    lines.push(
      'resume schema:',
      ...JSON.stringify(tool.resumeSchema, null, 2)
        .split('\n')
        .map((l) => `  ${l}`),
    );
  }
  return lines;
}

/** How far a call that needs several approvers got. */
function quorumLine({ required, approvals }: NonNullable<PendingToolCall['quorum']>): string {
  const who = approvals.map((a) => a.principal).join(', ');
  return `needs ${required} approvers, each once: ${approvals.length} of ${required} so far${who ? ` (${who})` : ''}`;
}

/** A call's preview, whole: the fingerprint covers it, and an approval holds for it alone. */
function previewLines(preview: PendingToolCall['preview']): string[] {
  if (!preview) return [];
  const now = `preview (the fingerprint covers it): ${JSON.stringify(preview.value)}`;
  if (!preview.previous) return [now];
  return [`the preview changed after it was approved; it was: ${JSON.stringify(preview.previous.value)}`, now];
}

/** How to go on with a call a run waits on, as agentctl commands. */
export function nextStepLines(runId: string, p: PendingToolCall): string[] {
  const target = `${runId} --fingerprint ${p.fingerprint}`;
  switch (p.kind) {
    case 'approval':
      return [
        ...(p.quorum ? [quorumLine(p.quorum)] : []),
        ...(p.judged
          ? [`the approval judge ${p.judged.version} handed it to a person: ${oneLineText(p.judged.reason, 500)}`]
          : []),
        ...previewLines(p.preview),
        `to approve (someone the agent lets decide${p.selfApproval === false ? ", not the run's starter" : ''}): ` +
          `agentctl --as WHO approve ${target}`,
        `to decline: agentctl --as WHO decline ${target} --reason TEXT`,
      ];
    case 'suspend':
      return [`to resume: agentctl --as WHO resume ${target} --data JSON`];
    case 'uncertain':
      // A model step its provider would not answer: nothing can stand in for the model's answer.
      if (p.toolName === MODEL_STEP_TOOL) {
        return [
          `to call the model again (once its key or provider is fixed): agentctl --as WHO resolve ${target} --retry`,
          `to fail the run: agentctl --as WHO resolve ${target} --fail --reason TEXT`,
        ];
      }
      return [`to resolve: agentctl --as WHO resolve ${target} (--retry | --skip [--output JSON] | --fail)`];
    case 'client':
      return [`to submit its result: agentctl --as WHO submit ${target} --result JSON`];
  }
}

/** A tool run's result, for people: the call and how it ended, or what it waits on and how to go on. */
export function toolRunLines(call: { toolName: string; input: JsonValue }, result: RunResult): string[] {
  const lines = resultLines(result);
  const outcome = result.steps[0]?.toolResults[0];
  const shown = `${call.toolName}(${JSON.stringify(call.input)})`;
  if (result.pendingToolCalls.length > 0) {
    for (const p of result.pendingToolCalls) lines.push(...nextStepLines(result.runId, p));
  } else if (outcome && !outcome.isError) {
    lines.push(`${shown} -> ${JSON.stringify(outcome.output)}`);
  } else if (outcome) {
    lines.push(`${shown} -> ${outcome.declined ? 'declined' : 'error'}: ${outcome.error}`);
  }
  return lines;
}

function oneLineText(text: string, max: number): string {
  const line = text.replace(/\s*\n\s*/g, ' ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
