/**
 * A message for a run while it works (`POST /runs/:runId/messages`): queued for the model's next step,
 * or refused with the reason (409; 403 for a sender who may not steer the run).
 */
import type { Hono } from 'hono';
import type { AgentClient } from '../../client/agent-client.js';
import type { ServerEnv } from '../auth/guards.js';
import { jsonBody, RunMessageBodySchema } from '../requests.js';

export function serveMessageRoutes(app: Hono<ServerEnv>, client: AgentClient): void {
  app.post('/runs/:runId/messages', async (c) => {
    const principal = c.get('principal');
    const { text, messageId } = await jsonBody(c, RunMessageBodySchema);
    const ack = await client.sendMessage(c.req.param('runId'), text, {
      ...(principal ? { principal } : {}),
      ...(messageId !== undefined ? { messageId } : {}),
    });
    return c.json(ack, 202);
  });
}
