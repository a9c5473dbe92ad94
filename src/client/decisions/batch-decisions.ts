/**
 * Batch decisions by predicate: every waiting approval of a tool whose arguments meet the conditions,
 * found through visibility, then decided one by one through `sendDecision`, so that each is checked as
 * if decided alone (by the client, then by the run) and bound to the fingerprint the batch saw.
 */
import {
  checkCondition,
  inBatch,
  MAX_BATCH_CALLS,
  MAX_BATCH_CONDITIONS,
  parseCondition,
  shownArgs,
  type BatchCondition,
} from '../../approvals/batch.js';
import { canRead, confinedTenant, tenantCheck } from '../../approvals/access.js';
import { InvalidInputError } from '../../errors.js';
import { rejectUnknownKeys } from '../../options.js';
import type { JsonValue } from '../../schemas/json.js';
import { IdSchema } from '../../schemas/limits.js';
import { checkInput } from '../checks.js';
import type { ClientActor, ClientContext } from '../context.js';
import { principalOf, type PrincipalInput } from '../identity.js';
import { listRuns, type RunInfo } from '../runs/runs.js';
import { checkedDecision, sendDecision } from './decisions.js';

/** What a batch decides: see `AgentClient.decideBatch`. */
export interface BatchDecisionRequest {
  kind: 'approve' | 'decline';
  toolName: string;
  agentId?: string;
  /** The tenant whose runs it takes (a principal of a tenant takes only that tenant's, whatever it says). */
  resourceId?: string;
  /** Conditions on the call's arguments, all of which must hold: `{ path, op, value }` or `'amount<=50'`. */
  where?: ReadonlyArray<BatchCondition | string>;
  /**
   * Only calls with one of these fingerprints (at most 500): what a person reviewed in a dry run, and no
   * call that began to wait since.
   */
  fingerprints?: readonly string[];
  /** With `decline`: why, which each run's model reads. */
  reason?: string;
  /** A note for each decision's trail (a ticket). */
  by?: string;
  principal?: PrincipalInput;
}

/** A call a batch took, its arguments as the agent displays them (see `shownArgs`). */
export interface BatchCall {
  runId: string;
  toolCallId: string;
  toolName: string;
  args: JsonValue;
  fingerprint: string;
}

/** What a batch did (or, in a dry run, would do): each call decided, or refused with why. */
export interface BatchOutcome {
  dryRun: boolean;
  decided: Array<BatchCall & { decisionId?: string }>;
  refused: Array<BatchCall & { type: string; message: string }>;
  /** More calls matched than one batch takes (500): only the first were taken; narrow the predicate. */
  capped: boolean;
}

/** How a batch runs: see `AgentClient.decideBatch`. */
export interface BatchOptions {
  /** Send nothing: say what would be decided and what refused. */
  dryRun?: boolean;
  /** A read rule of the caller's own on top of the agent's (a server's): runs it refuses are left out. */
  mayRead?: (run: RunInfo) => boolean;
}

const REQUEST_KEYS = [
  'kind',
  'toolName',
  'agentId',
  'resourceId',
  'where',
  'fingerprints',
  'reason',
  'by',
  'principal',
];

export async function decideBatch(
  ctx: ClientContext,
  actor: ClientActor,
  request: BatchDecisionRequest,
  { dryRun = false, mayRead }: BatchOptions,
): Promise<BatchOutcome> {
  rejectUnknownKeys('decideBatch', request, REQUEST_KEYS);
  const { kind, toolName, agentId, resourceId, reason, by } = request;
  if (kind !== 'approve' && kind !== 'decline') {
    throw new InvalidInputError('kind', `is approve or decline, not ${JSON.stringify(kind)}`);
  }
  if (reason !== undefined && kind !== 'decline') throw new InvalidInputError('reason', 'goes with decline only');
  checkInput('toolName', IdSchema, toolName);
  if (agentId !== undefined) checkInput('agentId', IdSchema, agentId);
  if (resourceId !== undefined) checkInput('resourceId', IdSchema, resourceId);
  const where = conditions(request.where);
  const only = fingerprintSet(request.fingerprints);
  // "Every waiting refund" is a batch nobody should send by leaving a flag out.
  if (where.length === 0 && only === undefined) {
    throw new InvalidInputError('where', 'names at least one condition (or give the fingerprints of a preview)');
  }
  const principal = principalOf(request.principal ?? actor.principal, ctx.temporal.options.identity);
  // A principal of a tenant decides in its own tenant only: its batch looks nowhere else.
  // An operator of every tenant (`*`) is confined to none: a resourceId narrows its batch.
  const confined = confinedTenant(principal);
  if (confined !== undefined && resourceId !== undefined && resourceId !== confined) {
    throw new InvalidInputError(
      'resourceId',
      `is ${resourceId}, but ${principal!.id} decides in tenant ${confined} only`,
    );
  }
  const tenant = confined ?? resourceId;
  const runs = await listRuns(ctx, {
    status: 'suspended',
    ...(agentId !== undefined ? { agentId } : {}),
    ...(tenant !== undefined ? { resourceId: tenant } : {}),
    limit: Number.POSITIVE_INFINITY,
  });
  const filter = { toolName, ...(agentId !== undefined ? { agentId } : {}), ...(tenant ? { resourceId: tenant } : {}) };
  // Runs the principal may not read are left out unnamed: a batch tells nobody of a run they cannot read.
  // A sub-agent's run (`<parent>::<call>`) shows its calls on the top run too, qualified: it is decided
  // there, once, not also in the sub-agent's run.
  const readable = (run: (typeof runs)[number]) =>
    !run.unreadable &&
    !run.runId.includes('::') &&
    tenantCheck(principal, run.resourceId).allowed &&
    canRead(run.read, run, principal).allowed &&
    (mayRead?.(run) ?? true);
  const taken = runs
    .filter(readable)
    .flatMap((run) =>
      run.pendingToolCalls
        .filter((call) => inBatch(run, call, { ...filter, where }) && (only?.has(call.fingerprint) ?? true))
        .map((call) => ({ run, call })),
    );
  const outcome: BatchOutcome = { dryRun, decided: [], refused: [], capped: taken.length > MAX_BATCH_CALLS };
  for (const { run, call } of taken.slice(0, MAX_BATCH_CALLS)) {
    const shown: BatchCall = {
      runId: run.runId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      args: shownArgs(call),
      fingerprint: call.fingerprint,
    };
    const target = {
      runId: run.runId,
      toolCallId: call.toolCallId,
      fingerprint: call.fingerprint,
      principal,
      ...(reason !== undefined ? { reason } : {}),
      ...(by !== undefined ? { by } : {}),
    };
    // A call with a preview is approved on what its approver saw, which a batch never shows.
    if (call.preview && kind === 'approve') {
      const message = `${call.toolName} ${call.toolCallId} shows a preview: approve it on its own, having read it`;
      outcome.refused.push({ ...shown, type: 'NotAllowed', message });
      continue;
    }
    try {
      if (dryRun) {
        // Every check a decision of this call would pass, and nothing sent.
        await checkedDecision(ctx, kind, target, actor.signingKey);
        outcome.decided.push(shown);
      } else {
        const sent = await sendDecision(ctx, kind, target, actor.signingKey);
        outcome.decided.push({ ...shown, decisionId: sent.decisionId });
      }
    } catch (err) {
      const e = err as Error & { type?: string };
      outcome.refused.push({ ...shown, type: e.type ?? e.name, message: e.message });
    }
  }
  return outcome;
}

function conditions(where: BatchDecisionRequest['where']): BatchCondition[] {
  if (where === undefined) return [];
  if (!Array.isArray(where)) throw new InvalidInputError('where', 'is a list of conditions');
  if (where.length > MAX_BATCH_CONDITIONS) {
    throw new InvalidInputError('where', `has ${where.length} conditions, at most ${MAX_BATCH_CONDITIONS}`);
  }
  for (const c of where) {
    if (typeof c === 'object' && c !== null) rejectUnknownKeys('decideBatch: a condition', c, ['path', 'op', 'value']);
  }
  try {
    return where.map((c) => (typeof c === 'string' ? parseCondition(c) : checkCondition(c)));
  } catch (err) {
    throw new InvalidInputError('where', (err as Error).message);
  }
}

function fingerprintSet(fingerprints: BatchDecisionRequest['fingerprints']): Set<string> | undefined {
  if (fingerprints === undefined) return undefined;
  if (!Array.isArray(fingerprints) || fingerprints.length > MAX_BATCH_CALLS) {
    throw new InvalidInputError('fingerprints', `is a list of at most ${MAX_BATCH_CALLS} fingerprints`);
  }
  for (const f of fingerprints) checkInput('fingerprints', IdSchema, f);
  return new Set(fingerprints);
}
