/**
 * The routes that decide a waiting call: on a run, by kind (approve, decline, resume, a client tool's
 * result, a resolution), or on a thread (Mastra's tool approval). Each answers with the run's stream
 * from the decision on.
 */
import type { Context, Hono } from 'hono';
import { confinedTenant, tenantCheck } from '../../approvals/access.js';
import { approvalWithResumeData } from '../../approvals/approval-resume-data.js';
import type { AgentClient } from '../../client/agent-client.js';
import { checkInput } from '../../client/checks.js';
import type { DecisionRequest } from '../../client/decisions/decide.js';
import { pickThreadCall } from '../../client/decisions/thread-decisions.js';
import { suspendedRun } from '../../client/runs/runs.js';
import { decisionRefused } from '../../errors.js';
import type { DecisionKind } from '../../schemas/decisions.js';
import { IdSchema } from '../../schemas/limits.js';
import { errorBody, type ServerEnv } from '../auth/guards.js';
import { BatchDecisionBodySchema, DecisionBodySchema, jsonBody, ThreadApprovalBodySchema } from '../requests.js';
import type { BatchDecisionRequest } from '../../client/decisions/batch-decisions.js';
import { allowOrDeny, type RouteAccess } from './access.js';
import { streamFrom } from './runs.js';

export function serveDecisionRoutes(app: Hono<ServerEnv>, client: AgentClient, access: RouteAccess): void {
  const decide = (kind: DecisionKind) => async (c: Context<ServerEnv>) => {
    const { resumeData, result, args, resolution, output, ...target } = await jsonBody(c, DecisionBodySchema);
    if (kind === 'resume' && resumeData === undefined) {
      return c.json(errorBody('InvalidRequest', 'resume needs "resumeData"'), 400);
    }
    if (kind === 'result' && result === undefined) {
      return c.json(errorBody('InvalidRequest', 'a tool result needs "result"'), 400);
    }
    if (kind === 'resolve' && resolution === undefined) {
      return c.json(errorBody('InvalidRequest', 'resolve needs "resolution": retry, skip or fail'), 400);
    }
    const principal = c.get('principal');
    const request = {
      kind,
      runId: c.req.param('runId')!,
      ...target,
      ...(principal ? { principal } : {}),
      ...(kind === 'resume' ? { resumeData } : {}),
      ...(kind === 'result' ? { result } : {}),
      ...(kind === 'approve' && args !== undefined ? { args } : {}),
      ...(kind === 'resolve' ? { action: resolution, ...(output !== undefined ? { output } : {}) } : {}),
    } as DecisionRequest;
    const stream = await client.decide(request);
    return streamFrom(client, stream.runId, { offset: stream.fromOffset, skip: 0 });
  };
  app.post('/threads/:threadId/tool-approval', async (c) => {
    const principal = c.get('principal');
    const threadId = checkInput('threadId', IdSchema, c.req.param('threadId'));
    const body = await jsonBody(c, ThreadApprovalBodySchema);
    const resourceId = body.resourceId ?? confinedTenant(principal);
    allowOrDeny(tenantCheck(principal, resourceId));
    // What the approval cannot carry is refused before any run is searched.
    const taken = approvalWithResumeData(body.approved, body.reason, body.resumeData);
    if ('refusal' in taken) throw decisionRefused(`thread:${threadId}`, 'WrongPauseKind', taken.refusal);
    // Only the runs this principal may read are searched, so a refusal names no other call.
    const runs = await client.listRuns({ status: 'suspended', threadId, resourceId, limit: Infinity });
    const visible = runs.filter((run) => access.mayRead(run, principal)).map(suspendedRun);
    const picked = pickThreadCall(threadId, visible, { toolCallId: body.toolCallId, fingerprint: body.fingerprint });
    if ('refusal' in picked) throw decisionRefused(`thread:${threadId}`, picked.refusal.type, picked.refusal.message);
    const stream = await client.decide({
      kind: body.approved ? 'approve' : 'decline',
      runId: picked.runId,
      toolCallId: picked.call.toolCallId,
      fingerprint: body.fingerprint,
      ...(taken.reason !== undefined ? { reason: taken.reason } : {}),
      ...(body.by !== undefined ? { by: body.by } : {}),
      ...(principal ? { principal } : {}),
    } as DecisionRequest);
    return streamFrom(client, stream.runId, { offset: stream.fromOffset, skip: 0 });
  });
  // Every waiting approval a predicate takes, each decided as if alone in the authenticated principal's
  // name; only runs the principal may read (by the server's rules too) are looked at, or named.
  app.post('/batch-decisions', async (c) => {
    const principal = c.get('principal');
    const { dryRun, ...request } = await jsonBody(c, BatchDecisionBodySchema);
    const outcome = await client.decideBatch(
      { ...request, ...(principal ? { principal } : {}) } as BatchDecisionRequest,
      { dryRun: dryRun ?? false, mayRead: (run) => access.mayRead(run, principal) },
    );
    return c.json(outcome);
  });
  app.post('/runs/:runId/approve', decide('approve'));
  app.post('/runs/:runId/decline', decide('decline'));
  app.post('/runs/:runId/resume', decide('resume'));
  app.post('/runs/:runId/tool-result', decide('result'));
  app.post('/runs/:runId/resolve', decide('resolve'));
}
