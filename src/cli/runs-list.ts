/**
 * `agentctl runs list`: runs found through Temporal visibility, the newest first on the dev server, as
 * many as `--limit` asks, or one page at a time (`--page-size`, `--page-token`) to walk 10,000 of them.
 */
import { Option, type Command } from 'commander';
import type { RunInfo } from '../client/runs/runs.js';
import { RUN_STATUSES } from '../schemas/run-status.js';
import type { RunStatus } from '../schemas/run-result.js';
import { shownPending } from '../schemas/shown-pending.js';
import type { CommandContext } from './common.js';
import { buildLine, retryCell, table } from './format.js';

interface ListOptions {
  status?: RunStatus;
  agent?: string;
  thread?: string;
  resource?: string;
  modelRetrying?: boolean;
  limit: string;
  pageSize?: string;
  pageToken?: string;
  json?: boolean;
}

export function addRunsListCommand(runs: Command, { connect, print }: CommandContext): void {
  runs
    .command('list')
    .description("list runs (newest first on the dev server; the order is visibility's)")
    .addOption(new Option('--status <status>', 'only runs in this status').choices(RUN_STATUSES))
    .option('--agent <id>', 'only runs of this agent')
    .option('--thread <id>', 'only runs on this thread')
    .option('--resource <id>', 'only runs of this resource')
    .option(
      '--model-retrying',
      'only runs whose model step is being retried because its provider fails, with the attempt and the last failure ' +
        '(each running run is described)',
    )
    .option('--limit <n>', 'at most this many runs (1-10000)', '50')
    .addOption(
      new Option('--page-size <n>', 'one page of at most this many runs (1-1000), and the token of the next').conflicts(
        ['limit', 'modelRetrying'],
      ),
    )
    .addOption(
      new Option('--page-token <token>', 'the page after the one that printed this token (same filter)').conflicts([
        'limit',
        'modelRetrying',
      ]),
    )
    .option('--json', 'machine-readable output')
    .action(async (o: ListOptions, cmd: Command) => {
      // Checked before connecting; loaded here, not at the top, like everything --help does not need.
      const { limitOption, pageSizeOption, pageTokenOption } = await import('./input.js');
      const paged = o.pageSize !== undefined || o.pageToken !== undefined;
      const limit = paged ? undefined : limitOption(o.limit);
      const pageSize = o.pageSize === undefined ? undefined : pageSizeOption(o.pageSize);
      const pageToken = o.pageToken === undefined ? undefined : pageTokenOption(o.pageToken);
      const c = await connect(cmd);
      const filter = { status: o.status, agentId: o.agent, threadId: o.thread, resourceId: o.resource };
      const page = paged
        ? await c.listRunsPage({
            ...filter,
            ...(pageSize !== undefined ? { pageSize } : {}),
            ...(pageToken !== undefined ? { pageToken } : {}),
          })
        : { runs: await c.listRuns({ ...filter, ...(o.modelRetrying ? { modelRetrying: true } : {}), limit }) };
      const list = page.runs.map((r) => ({ ...r, pendingToolCalls: r.pendingToolCalls.map(shownPending) }));
      const lines = page.runs.length === 0 ? ['no runs'] : runsTable(page.runs, !!o.modelRetrying);
      if (!paged) return print(!!o.json, list, lines);
      const next = page.nextPageToken;
      print(!!o.json, { runs: list, ...(next ? { nextPageToken: next } : {}) }, [
        ...lines,
        next ? `next page: --page-token ${next}` : 'last page',
      ]);
    });
}

function runsTable(runs: RunInfo[], modelRetrying: boolean): string[] {
  const rows = runs.map((r) => [
    r.runId,
    r.agentId ?? '-',
    r.unreadable ? `${r.status} (unreadable: ${r.unreadable})` : r.status,
    r.pendingToolCalls.map((p) => `${p.toolName}:${p.toolCallId}`).join(',') || '-',
    r.threadId ?? '-',
    r.startTime.toISOString(),
    r.build ? buildLine(r.build) : '-',
    ...(modelRetrying ? [retryCell(r.modelRetry)] : []),
  ]);
  const head = ['RUN', 'AGENT', 'STATUS', 'PENDING', 'THREAD', 'STARTED', 'BUILD'];
  return table([head.concat(modelRetrying ? ['MODEL RETRY'] : []), ...rows]);
}
