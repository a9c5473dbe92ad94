/**
 * Standing grants over HTTP, in the authenticated principal's name: made from a call of a run the
 * principal may read (and could approve now), listed and revoked in an agent's book on the principal's
 * tenant, or revoked by maker across the tenant's books. The run checks every grant again before it takes one.
 */
import type { Hono } from 'hono';
import { confinedTenant } from '../../approvals/access.js';
import type { AgentClient } from '../../client/agent-client.js';
import { checkInput } from '../../client/checks.js';
import { InvalidInputError } from '../../errors.js';
import { IdSchema } from '../../schemas/limits.js';
import type { ServerEnv } from '../auth/guards.js';
import { GrantBodySchema, jsonBody } from '../requests.js';
import type { RouteAccess } from './access.js';

export function serveGrantRoutes(app: Hono<ServerEnv>, client: AgentClient, access: RouteAccess): void {
  app.post('/runs/:runId/grants', async (c) => {
    const principal = c.get('principal');
    const info = await access.readableRun(c.req.param('runId'), principal);
    const body = await jsonBody(c, GrantBodySchema);
    const grant = await client.grants.create({ runId: info.runId, ...body, ...(principal ? { principal } : {}) });
    return c.json(grant, 201);
  });

  const book = (agentId: string, resourceId: string | undefined) => ({
    agentId: checkInput('agentId', IdSchema, agentId),
    ...(resourceId !== undefined ? { resourceId: checkInput('resourceId', IdSchema, resourceId) } : {}),
  });
  // The principal's own tenant where it has one: another tenant's book is refused.
  app.get('/agents/:agentId/grants', async (c) => {
    const principal = c.get('principal');
    const target = book(c.req.param('agentId'), c.req.query('resourceId') ?? confinedTenant(principal));
    return c.json({ grants: await client.grants.list({ ...target, ...(principal ? { principal } : {}) }) });
  });
  app.delete('/agents/:agentId/grants/:grantId', async (c) => {
    const principal = c.get('principal');
    const target = book(c.req.param('agentId'), c.req.query('resourceId') ?? confinedTenant(principal));
    const grantId = checkInput('grantId', IdSchema, c.req.param('grantId'));
    return c.json(await client.grants.revoke({ ...target, grantId, ...(principal ? { principal } : {}) }));
  });
  // A leaver's grants, in every book of the principal's tenant (or of one agent, or one resource).
  app.delete('/grants', async (c) => {
    const principal = c.get('principal');
    const query = c.req.queries();
    for (const [key, values] of Object.entries(query)) {
      if (!['createdBy', 'agentId', 'resourceId'].includes(key)) {
        throw new InvalidInputError(key, 'not a parameter of DELETE /grants (createdBy, agentId, resourceId)');
      }
      // A second value would be dropped, and its maker's grants left live while the answer looks whole.
      if (values.length > 1) throw new InvalidInputError(key, 'given more than once: revoke one maker at a time');
    }
    const [createdBy, agentId, resourceId] = ['createdBy', 'agentId', 'resourceId'].map((key) => query[key]?.[0]);
    const request = {
      createdBy: checkInput('createdBy', IdSchema, createdBy),
      ...(agentId !== undefined ? { agentId: checkInput('agentId', IdSchema, agentId) } : {}),
      ...(resourceId !== undefined ? { resourceId: checkInput('resourceId', IdSchema, resourceId) } : {}),
    };
    return c.json(await client.grants.revokeMadeBy({ ...request, ...(principal ? { principal } : {}) }));
  });
}
