/**
 * `agentctl threads list | show | tasks`: a resource's threads, a thread's messages and its task list,
 * from Temporal (no worker needed).
 */
import type { Command } from 'commander';
import type { Message } from '../schemas/message.js';
import type { WorkingMemory } from '../client/threads.js';
import type { CommandContext } from './common.js';
import { table } from './format.js';

/** One line a message shows as: its role, then its text, tool calls and results. */
export function messageLine(message: Message): string {
  const parts =
    typeof message.content === 'string'
      ? [message.content]
      : message.content.map((p) => {
          if (p.type === 'text') return String(p.text);
          if (p.type === 'tool-call') return `[call ${String(p.toolName)} ${String(p.toolCallId)}]`;
          if (p.type === 'tool-result') return `[result ${String(p.toolName)} ${String(p.toolCallId)}]`;
          return `[${String(p.type)}]`;
        });
  return `${message.role}: ${parts.join(' ').replace(/\s+/g, ' ')}`;
}

/** The working memory as `threads show` prints it: a heading, then its text indented. */
export function workingMemoryLines(memory: WorkingMemory | undefined): string[] {
  if (!memory) return [];
  const by = `${memory.agentId} run ${memory.runId}`;
  return [
    `working memory (${memory.content.length} characters, updated ${memory.updatedAt.toISOString()} by ${by}):`,
    ...memory.content.split('\n').map((line) => `  ${line}`),
    'messages:',
  ];
}

export function addThreadCommands(program: Command, { connect, print }: CommandContext): void {
  const threads = program
    .command('threads')
    .description("list a resource's threads, show a thread's messages, working memory and task list");
  threads
    .command('list')
    .description('list threads, most recently updated first')
    .option('--resource <id>', 'only threads of this resource')
    .option('--limit <n>', 'at most this many threads (1-10000)', '50')
    .option('--json', 'machine-readable output')
    .action(async (o: { resource?: string; limit: string; json?: boolean }, cmd: Command) => {
      const { limitOption } = await import('./input.js');
      const limit = limitOption(o.limit);
      const c = await connect(cmd);
      const list = await c.listThreads({ ...(o.resource ? { resourceId: o.resource } : {}), limit });
      const rows = list.map((t) => [
        t.threadId,
        t.resourceId ?? '-',
        String(t.messageCount),
        String(t.turnCount),
        t.agentIds.join(',') || '-',
        t.unreadable ? `unreadable: ${t.unreadable}` : (t.updatedAt?.toISOString() ?? '-'),
      ]);
      print(
        !!o.json,
        list,
        list.length === 0
          ? ['no threads']
          : table([['THREAD', 'RESOURCE', 'MESSAGES', 'TURNS', 'AGENTS', 'UPDATED'], ...rows]),
      );
    });
  threads
    .command('show')
    .description("show a thread's working memory, if it has one, and its most recent messages (the last 100)")
    .argument('<thread>', 'thread id')
    .option('--resource <id>', 'the resource the thread belongs to')
    .option('--json', 'machine-readable output')
    .action(async (threadId: string, o: { resource?: string; json?: boolean }, cmd: Command) => {
      const c = await connect(cmd);
      const read = await c.getThreadMessages({ threadId, ...(o.resource ? { resourceId: o.resource } : {}) });
      const lines = [
        `thread ${read.threadId}${read.resourceId ? ` of ${read.resourceId}` : ''}: ` +
          `${read.messageCount} messages in ${read.turnCount} turns`,
        ...workingMemoryLines(read.workingMemory),
        ...(read.omittedMessages > 0 ? [`(${read.omittedMessages} older messages not shown)`] : []),
        ...read.messages.map(messageLine),
      ];
      print(!!o.json, read, lines);
    });
  threads
    .command('tasks')
    .description("show a thread's task list (what the task tools made of it)")
    .argument('<thread>', 'thread id')
    .option('--resource <id>', 'the resource the thread belongs to')
    .option('--json', 'machine-readable output')
    .action(async (threadId: string, o: { resource?: string; json?: boolean }, cmd: Command) => {
      const c = await connect(cmd);
      const read = await c.getThreadTasks({ threadId, ...(o.resource ? { resourceId: o.resource } : {}) });
      const { total, completed } = read.summary;
      const head = `thread ${read.threadId}${read.resourceId ? ` of ${read.resourceId}` : ''}: `;
      const lines =
        total === 0
          ? [`${head}no tasks`]
          : [
              `${head}${completed} of ${total} tasks completed` +
                (read.tasksUpdatedAt ? ` (updated ${read.tasksUpdatedAt.toISOString()})` : ''),
              ...table([
                ['ID', 'STATUS', 'TASK'],
                ...read.tasks.map((t) => {
                  const doing = t.status === 'in_progress' && t.activeForm ? ` (${t.activeForm})` : '';
                  return [t.id, t.status, `${t.content}${doing}`.replace(/\s+/g, ' ')];
                }),
              ]),
            ];
      print(!!o.json, read, lines);
    });
}
