/** How agentctl prints runs, pending calls and results for people. */
import type { Principal } from '../schemas/access.js';
import type { DecisionRecord, PendingToolCall } from '../schemas/decisions.js';
import type { RunResult } from '../schemas/run-result.js';
import type { RunInfo } from './runs.js';

export function pendingLine(p: PendingToolCall): string {
  const what = {
    approval: 'awaits approval',
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
  for (const p of result.pendingToolCalls) lines.push(`pending: ${pendingLine(p)}`);
  return lines;
}

export function runLines(run: RunInfo): string[] {
  const lines = [
    `run:       ${run.runId}`,
    `agent:     ${run.agentId ?? '-'}`,
    `status:    ${run.status} (workflow ${run.workflowStatus})`,
    `thread:    ${run.threadId ?? '-'}   resource: ${run.resourceId ?? '-'}`,
    `started:   ${run.startTime.toISOString()}${run.closeTime ? `   closed: ${run.closeTime.toISOString()}` : ''}` +
      (run.startedBy ? `   by ${principalLine(run.startedBy)}` : ''),
  ];
  lines.push(`pending tool calls: ${run.pendingToolCalls.length === 0 ? 'none' : ''}`);
  for (const p of run.pendingToolCalls) lines.push(`  ${pendingLine(p)}`);
  lines.push(`decisions: ${run.decisions.length === 0 ? 'none' : ''}`);
  for (const d of run.decisions) lines.push(`  ${decisionLine(d)}`);
  return lines;
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
