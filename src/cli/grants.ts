/**
 * agentctl's grant commands: make a standing grant from a call that waits ("approve, and allow calls
 * like this"), list an agent's grants on a resource, and revoke one. Who you are (--as, --identity) is who
 * makes or revokes it; the run checks every grant against the agent's policy before it takes one.
 */
import type { Command } from 'commander';
import type { Grant } from '../schemas/grants.js';
import { Refusal, type CommandContext } from './common.js';

interface CreateFlags {
  fingerprint: string;
  call?: string;
  scope: string;
  where: string[];
  hours?: string;
  uses?: string;
  reason?: string;
}

interface RevokeFlags {
  agent?: string;
  resource?: string;
  createdBy?: string;
  json?: boolean;
}

const collect = (value: string, all: string[]) => [...all, value];

/** A grant as one line: what it covers, for how long, how often, by whom. */
export function grantLine(g: Grant): string {
  const scope =
    g.scope.kind === 'run'
      ? `run ${g.scope.runId}`
      : g.scope.kind === 'thread'
        ? `thread ${g.scope.threadId}`
        : 'resource';
  const uses = g.maxUses !== undefined ? `${g.uses} of ${g.maxUses} uses` : `${g.uses} uses`;
  const state = g.revoked ? `revoked by ${g.revoked.by.id} at ${g.revoked.at}` : `until ${g.expiresAt}`;
  const what = `${g.toolName} where ${g.where.join(' and ')}`;
  return `${g.grantId}  ${what}  in ${scope}  ${uses}  ${state}  by ${g.createdBy.id}`;
}

function count(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new Refusal(`${flag} is a whole number, not ${JSON.stringify(value)}`);
  return Number(value);
}

export function addGrantCommands(program: Command, { connect, print }: CommandContext): void {
  const grants = program
    .command('grants')
    .description('standing grants: approve in advance the calls like one that waits, within conditions');

  grants
    .command('create')
    .description(
      'make a grant from a call that waits for approval, which you could approve now: later calls of its tool in ' +
        'its scope whose arguments meet every --where run without waiting, as approved by you',
    )
    .argument('<run>', 'the run the call waits in')
    .requiredOption('--fingerprint <sha256>', 'the fingerprint of the call, as you were shown it')
    .option('--call <toolCallId>', 'the call (default: the one with that fingerprint)')
    .requiredOption('--scope <scope>', 'run, thread or resource: the calls it holds for')
    .option('--where <condition>', 'a condition on the arguments, as `amount<=50` (repeat; at least one)', collect, [])
    .option('--hours <n>', 'how long it holds (default 24)')
    .option('--uses <n>', 'how many calls it may approve (default: any number until it expires)')
    .option('--reason <text>', 'why, for the trail of each call it approves')
    .option('--json', 'print the grant as JSON')
    .action(async (runId: string, o: CreateFlags & { json?: boolean }, cmd: Command) => {
      if (o.scope !== 'run' && o.scope !== 'thread' && o.scope !== 'resource') {
        throw new Refusal(`--scope is run, thread or resource, not ${JSON.stringify(o.scope)}`);
      }
      const c = await connect(cmd);
      const toolCallId =
        o.call ?? (await c.getRun(runId)).pendingToolCalls.find((p) => p.fingerprint === o.fingerprint)?.toolCallId;
      if (!toolCallId) throw new Refusal(`run ${runId} has no waiting call with fingerprint ${o.fingerprint}`);
      const hours = count('--hours', o.hours);
      const maxUses = count('--uses', o.uses);
      const grant = await c.grants.create({
        runId,
        toolCallId,
        fingerprint: o.fingerprint,
        scope: o.scope,
        where: o.where,
        ...(hours !== undefined ? { hours } : {}),
        ...(maxUses !== undefined ? { maxUses } : {}),
        ...(o.reason !== undefined ? { reason: o.reason } : {}),
      });
      const resource = grant.resourceId ? ` --resource ${grant.resourceId}` : '';
      print(o.json === true, grant, [
        `granted: ${grantLine(grant)}`,
        `to revoke: agentctl grants revoke ${grant.grantId} --agent ${grant.agentId}${resource}`,
      ]);
    });

  grants
    .command('list')
    .description("an agent's grants on a resource: live, expired, used up and revoked")
    .requiredOption('--agent <id>', 'the agent')
    .option('--resource <id>', 'the resource (tenant); none for runs without one')
    .option('--json', 'print the grants as JSON')
    .action(async (o: { agent: string; resource?: string; json?: boolean }, cmd: Command) => {
      const c = await connect(cmd);
      const list = await c.grants.list({ agentId: o.agent, ...(o.resource ? { resourceId: o.resource } : {}) });
      print(o.json === true, list, list.length ? list.map(grantLine) : ['no grants']);
    });

  grants
    .command('revoke')
    .description(
      'revoke a grant: it approves nothing from then on; or, with --created-by, every live grant one principal ' +
        "made (a leaver's) in the books your tenant reaches",
    )
    .argument('[grant]', 'the grant id')
    .option('--agent <id>', 'the agent (needed with a grant id)')
    .option('--resource <id>', 'the resource (tenant)')
    .option('--created-by <id>', 'revoke every live grant this principal made, instead of one grant')
    .option('--json', 'print the grant (or what was revoked and refused) as JSON')
    .action(async (grantId: string | undefined, o: RevokeFlags, cmd: Command) => {
      if ((grantId === undefined) === (o.createdBy === undefined)) {
        throw new Refusal('name one grant id, or --created-by ID for every grant one principal made');
      }
      const resource = o.resource ? { resourceId: o.resource } : {};
      if (o.createdBy !== undefined) {
        const c = await connect(cmd);
        const done = await c.grants.revokeMadeBy({
          createdBy: o.createdBy,
          ...(o.agent ? { agentId: o.agent } : {}),
          ...resource,
        });
        const books = `${done.books} grant book${done.books === 1 ? '' : 's'}`;
        print(o.json === true, done, [
          ...done.revoked.map((g) => `revoked: ${grantLine(g)}`),
          ...done.failed.map(
            (f) => `not reached: the book of ${f.agentId} on ${f.resourceId ?? 'no resource'}: ${f.reason}`,
          ),
          ...(done.refused > 0
            ? [`not revoked: ${done.refused} live grants of ${o.createdBy} you may not revoke`]
            : []),
          `${done.revoked.length} revoked in ${books}`,
        ]);
        // A script learns from the exit code that a grant of that maker may still be live.
        if (done.refused > 0 || done.failed.length > 0) {
          throw new Refusal(`${done.refused} grants not revoked, ${done.failed.length} books not reached`);
        }
        return;
      }
      if (!o.agent) throw new Refusal("--agent is needed with a grant id: the book is the agent's");
      const c = await connect(cmd);
      const grant = await c.grants.revoke({ agentId: o.agent, grantId: grantId!, ...resource });
      print(o.json === true, grant, [`revoked: ${grantLine(grant)}`]);
    });
}
