/**
 * The approval inbox: a page the HTTP server serves at `/inbox` (an HTML shell, one ES module, one
 * stylesheet; no framework, no build step), and the JSON it reads. The page holds no data: it signs in
 * with a bearer token kept in sessionStorage and reads `/inbox/calls`, which lists only what the
 * signed-in principal may read, as the waiting-runs route does.
 */
import { readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import { canDecide } from '../approvals/access.js';
import { quorumProblem } from '../approvals/quorum.js';
import type { ModelStepRetry } from '../client/runs/model-step.js';
import type { RunInfo } from '../client/runs/runs.js';
import type { Principal } from '../schemas/access.js';
import type { DecisionRecord, PendingToolCall } from '../schemas/decisions.js';
import type { JsonValue } from '../schemas/json.js';
import type { ServerEnv } from './auth/guards.js';

/** How many trail entries an inbox entry shows: the most recent ones. */
export const INBOX_TRAIL_LENGTH = 20;

/**
 * Scripts and styles only from this server, data only from this server, nothing framed, no forms
 * posted anywhere, no inline script or style: an argument that slipped past the page's escaping could
 * still run nothing.
 */
/**
 * The headers of a page's files (the inbox's, the chat's): the strict Content-Security-Policy, no sniffing,
 * no referrer, no framing, and no stale copy.
 */
export function pageHeaders(type: string): Record<string, string> {
  return {
    'content-type': type,
    'content-security-policy': INBOX_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cache-control': 'no-cache',
  };
}

export const INBOX_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A waiting call as the inbox shows it: what the run's stream shows of it, never the raw values it hides. */
export interface InboxCall {
  toolCallId: string;
  toolName: string;
  kind: PendingToolCall['kind'];
  /** The arguments as the stream shows them: display transforms applied. */
  args: JsonValue;
  /** Whether a display transform changed the arguments or the payload (the fingerprint binds the raw ones). */
  transformed: boolean;
  suspendPayload?: JsonValue;
  fingerprint: string;
  path: PendingToolCall['path'];
  askedAt: string;
  expiresAt?: string;
  escalation?: PendingToolCall['escalation'];
  resumeSchema?: Record<string, unknown>;
  uncertainty?: string;
  decide?: string[];
  /** For a call that needs several approvers: how many, and who approved so far. */
  quorum?: PendingToolCall['quorum'];
  /** The tool's preview, which the fingerprint covers (and the one approved before, where it changed). */
  preview?: PendingToolCall['preview'];
  /** Why the agent's model judge handed the call to a person. */
  judged?: PendingToolCall['judged'];
  /** Set where the agent lets standing grants cover the tool: how long a grant of it may live. */
  grantable?: PendingToolCall['grantable'];
}

/** One call waiting, in one run, for someone the signed-in principal may be. */
export interface InboxEntry {
  runId: string;
  agentId: string | undefined;
  threadId: string | undefined;
  resourceId: string | undefined;
  startedAt: string;
  startedBy: string | undefined;
  call: InboxCall;
  /** Whether the signed-in principal may decide it, and if not, why. */
  mayDecide: boolean;
  /** Set (false) where the principal may decline the call but not approve it: it approved it already. */
  mayApprove?: false;
  approvalRefusal?: string;
  refusal?: string;
  /** The run's decision trail, most recent last (at most {@link INBOX_TRAIL_LENGTH}). */
  trail: DecisionRecord[];
}

/** What the stream shows of a waiting call: the display form where a transform made one. */
export function inboxCall(call: PendingToolCall): InboxCall {
  const payload = call.display ? call.display.suspendPayload : call.suspendPayload;
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    kind: call.kind,
    args: call.display ? call.display.args : call.args,
    transformed: call.display !== undefined,
    ...(payload !== undefined ? { suspendPayload: payload } : {}),
    fingerprint: call.fingerprint,
    path: call.path,
    askedAt: call.askedAt,
    ...(call.expiresAt ? { expiresAt: call.expiresAt } : {}),
    ...(call.escalation ? { escalation: call.escalation } : {}),
    ...(call.resumeSchema ? { resumeSchema: call.resumeSchema } : {}),
    ...(call.uncertainty ? { uncertainty: call.uncertainty } : {}),
    ...(call.decide ? { decide: call.decide } : {}),
    ...(call.quorum ? { quorum: call.quorum } : {}),
    ...(call.preview ? { preview: call.preview } : {}),
    ...(call.judged ? { judged: call.judged } : {}),
    ...(call.grantable ? { grantable: call.grantable } : {}),
  };
}

/**
 * The inbox of a principal: every call of the given (readable) runs, newest first, each saying whether
 * this principal may decide it.
 */
export function inboxEntries(runs: RunInfo[], principal: Principal | undefined): InboxEntry[] {
  const entries = runs.flatMap((run) =>
    run.pendingToolCalls.map((call): InboxEntry => {
      const check = canDecide(call, run, principal);
      // A call that needs several approvers: one who approved may not approve it again (but may decline).
      const approval = check.allowed && call.kind === 'approval' ? quorumProblem(call, { principal }) : undefined;
      return {
        runId: run.runId,
        agentId: run.agentId,
        threadId: run.threadId,
        resourceId: run.resourceId,
        startedAt: run.startTime.toISOString(),
        startedBy: run.startedBy?.id,
        call: inboxCall(call),
        mayDecide: check.allowed,
        ...(check.allowed ? {} : { refusal: check.message }),
        ...(approval ? { mayApprove: false, approvalRefusal: approval.message } : {}),
        trail: run.decisions.slice(-INBOX_TRAIL_LENGTH),
      };
    }),
  );
  return entries.sort((a, b) => b.call.askedAt.localeCompare(a.call.askedAt) || b.runId.localeCompare(a.runId));
}

const asset = (name: string): string => readFileSync(new URL(`./inbox/${name}`, import.meta.url), 'utf8');

/**
 * Serves the page and its files, with no authentication: they hold no data, and the page must load
 * before anyone signs in. Every JSON route it reads is behind the server's authentication.
 */
export function serveInboxPage(app: Hono<ServerEnv>): void {
  const files = {
    html: asset('inbox.html'),
    js: asset('inbox.js'),
    batch: asset('batch.js'),
    css: asset('inbox.css'),
  };
  const headers = pageHeaders;
  app.get('/inbox', (c) => c.body(files.html, 200, headers('text/html; charset=utf-8')));
  app.get('/inbox/inbox.js', (c) => c.body(files.js, 200, headers('text/javascript; charset=utf-8')));
  app.get('/inbox/batch.js', (c) => c.body(files.batch, 200, headers('text/javascript; charset=utf-8')));
  app.get('/inbox/inbox.css', (c) => c.body(files.css, 200, headers('text/css; charset=utf-8')));
}

/** A run whose model step is being retried. */
export type RetryingRun = RunInfo & { modelRetry: ModelStepRetry };

/**
 * A run whose model step is being retried, as the inbox lists it: the attempt, when the next starts and
 * when the window ends, and the last failure's summary (the provider, the HTTP status and the kind),
 * without the provider's own words, which operators read with `agentctl runs show`.
 */
export function inboxRetrying(run: RetryingRun) {
  const retry = run.modelRetry;
  return {
    runId: run.runId,
    agentId: run.agentId,
    threadId: run.threadId,
    startTime: run.startTime.toISOString(),
    attempt: retry.attempt,
    nextAttemptAt: retry.nextAttemptAt?.toISOString() ?? null,
    windowEndsAt: retry.windowEndsAt?.toISOString() ?? null,
    lastFailure: failureSummary(retry.lastFailure),
  };
}

/** `the model provider of "x" failed (HTTP 429 rate-limited)`, without what follows (the provider's words). */
export function failureSummary(failure: string | undefined): string {
  const summary = /^the model provider of "[^"]{1,300}" (?:failed|refused the call) \([^)]{1,80}\)/.exec(failure ?? '');
  return summary?.[0] ?? 'the model provider failed';
}
