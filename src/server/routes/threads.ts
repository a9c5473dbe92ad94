/** The routes of threads: the threads a caller may use, and a thread's messages, working memory and tasks. */
import type { Hono } from 'hono';
import type { AgentClient } from '../../client/agent-client.js';
import type { ServerEnv } from '../auth/guards.js';
import { shownThreadMessages } from '../shown-result.js';
import type { RouteAccess } from './access.js';

export function serveThreadRoutes(app: Hono<ServerEnv>, client: AgentClient, access: RouteAccess): void {
  app.get('/threads', async (c) => {
    const resourceId = access.threadResource(c);
    const threads = await client.listThreads({ ...(resourceId ? { resourceId } : {}), limit: 1000 });
    return c.json({ threads: threads.filter((t) => access.threadReadable(t, c.get('principal')).allowed) });
  });

  const messages = (target: { threadId: string; resourceId?: string }) => client.getThreadMessages(target);

  // The thread's calls as their runs' streams showed them: a display transform's form, never the raw values.
  app.get('/threads/:threadId/messages', async (c) =>
    c.json(shownThreadMessages(await access.readableThread(c, messages))),
  );

  app.get('/threads/:threadId/working-memory', async (c) => {
    const thread = await access.readableThread(c, messages);
    return c.json({ workingMemory: thread.workingMemory ?? null });
  });

  app.get('/threads/:threadId/tasks', async (c) =>
    c.json(await access.readableThread(c, (target) => client.getThreadTasks(target))),
  );
}
