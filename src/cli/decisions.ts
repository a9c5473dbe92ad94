/** agentctl's decision commands: approve, decline, resume, submit, resolve. */
import type { Command } from 'commander';
import { RequestRefusedError } from '../errors.js';
import type { DecisionKind } from '../schemas/decisions.js';
import { Refusal, type CommandContext, type GlobalOptions } from './common.js';
import { resultLines } from './format.js';
import type { DecisionRequest } from '../client/decisions/decide.js';

const VERBS: Record<DecisionKind, string> = {
  approve: 'approved',
  decline: 'declined',
  resume: 'resumed',
  result: 'submitted the result of',
  resolve: 'resolved',
};

type Flags = Record<string, string | boolean | undefined>;

/** How `resolve` resolves: exactly one of --retry, --skip, --fail. */
function resolution(o: Flags): 'retry' | 'skip' | 'fail' {
  const chosen = (['retry', 'skip', 'fail'] as const).filter((r) => o[r]);
  if (chosen.length !== 1) {
    throw new RequestRefusedError('OptionNotAllowed', 'resolve takes exactly one of --retry, --skip, --fail');
  }
  return chosen[0]!;
}

/** Who decides: `--as` (or AGENTCTL_AS), or none where an identity file makes the client's principal decide. */
function decider(cmd: Command): { as: string | undefined; identified: boolean } {
  const g = cmd.optsWithGlobals<GlobalOptions>();
  const as = g.as ?? process.env.AGENTCTL_AS;
  // With an identity, the client's principal (its roles too) is who decides.
  const identified = (g.identity ?? process.env.AGENTCTL_IDENTITY) !== undefined;
  if (!as && !identified) {
    throw new RequestRefusedError(
      'IdentityRequired',
      'say who decides: --as NAME (or AGENTCTL_AS), or --identity FILE with your signing key; ' +
        'the decision trail records it with this client identity',
    );
  }
  return { as, identified };
}

export function addDecisionCommands(program: Command, context: CommandContext): void {
  const { connect, print } = context;
  addBatchCommand(program, context);
  const decide = (kind: DecisionKind) => async (runId: string, o: Flags, cmd: Command) => {
    const { as, identified } = decider(cmd);
    if (o.fingerprint === undefined && !o.latest) {
      throw new RequestRefusedError(
        'FingerprintRequired',
        'name the call you decide on with --fingerprint (agentctl runs show RUN lists it), ' +
          'or pass --latest to decide the most recent pending call whatever it is',
      );
    }
    const how = kind === 'resolve' ? resolution(o) : undefined;
    const { jsonOption } = await import('./input.js');
    const c = await connect(cmd);
    // Only the flags given (commander keeps each command's flags to its kind); the client refuses any other.
    const request = {
      kind,
      runId,
      ...(identified ? {} : { principal: as }),
      toolCallId: o.toolCall as string | undefined,
      fingerprint: o.fingerprint as string | undefined,
      by: o.note as string | undefined,
      reason: o.reason as string | undefined,
      ...(kind === 'resume' ? { resumeData: jsonOption(o.data as string, '--data') } : {}),
      ...(kind === 'result' ? { result: jsonOption(o.result as string, '--result') } : {}),
      ...(typeof o.args === 'string' ? { args: jsonOption(o.args, '--args') } : {}),
      ...(how ? { action: how } : {}),
      ...(typeof o.output === 'string' ? { output: jsonOption(o.output, '--output') } : {}),
    } as DecisionRequest;
    const sent = await c.decide(request, { then: 'sent' });
    const { toolName, toolCallId, fingerprint } = sent.call;
    const line = `${VERBS[sent.kind]} ${toolName} ${toolCallId} (fingerprint ${fingerprint}) on run ${runId}`;
    if (!o.wait) {
      print(!!o.json, { ...sent, status: 'sent' }, [line]);
      return;
    }
    const next = await c.next(runId, { decisionId: sent.decisionId });
    print(!!o.json, { ...sent, status: 'applied', result: next }, [line, ...resultLines(next)]);
  };

  /** A decision command: its own options, then those every decision takes. */
  const decisionCommand = (name: string, description: string, what: string) =>
    program
      .command(name)
      .description(description)
      .argument('<run>', 'run id')
      .option('--tool-call <id>', `the tool call to ${what} (default: the most recent one of its kind)`)
      .option('--fingerprint <sha256>', 'the fingerprint of the call you decide on (required unless --latest)')
      .option('--latest', 'decide the most recent pending call of its kind, whatever it is, without a fingerprint')
      .option('--note <text>', 'a free-text note for the decision trail (a ticket, a reason)')
      .option('--wait', 'wait until the run pauses again or finishes, and print that')
      .option('--json', 'machine-readable output');

  decisionCommand('approve', 'approve a tool call waiting for approval', 'approve')
    .option(
      '--args <json>',
      'approve with these arguments instead (checked against the input schema; the model is told)',
    )
    .action(decide('approve'));
  decisionCommand(
    'decline',
    'decline a tool call waiting for approval; the tool does not run and the model is told why',
    'decline',
  )
    .option('--reason <text>', 'why; the model sees it')
    .action(decide('decline'));
  decisionCommand('resume', 'resume a suspended tool call with data for its resumeSchema', 'resume')
    .requiredOption('--data <json>', 'the resume data, as JSON')
    .action(decide('resume'));
  decisionCommand('submit', 'supply the result of a client tool (a tool without execute) the run waits on', 'submit')
    .requiredOption('--result <json>', 'the tool result, as JSON')
    .action(decide('result'));
  decisionCommand(
    'resolve',
    'resolve a call whose side effect is uncertain (its worker died while it ran): retry, skip or fail it; ' +
      'or a model step its provider would not answer (@model): retry it or fail the run',
    'resolve',
  )
    .option('--retry', 'run the tool again (the side effect did not happen, or may happen twice)')
    .option('--skip', 'do not run it again: the side effect happened; --output is what the model gets')
    .option('--output <json>', 'with --skip: the tool output, as JSON (default null)')
    .option('--fail', 'make it a tool error the model sees (for @model: fail the run); --reason says why')
    .option('--reason <text>', 'why (with --fail, the model sees it)')
    .action(decide('resolve'));
}

/** `agentctl batch approve|decline`: every waiting approval a predicate takes, each decided on its own. */
function addBatchCommand(program: Command, { connect, print }: CommandContext): void {
  program
    .command('batch')
    .description(
      'approve or decline every waiting call of a tool whose arguments meet the conditions, each checked as if ' +
        'decided alone; --dry-run lists what would be decided and what refused',
    )
    .argument('<kind>', 'approve or decline')
    .requiredOption('--tool <name>', 'the tool whose waiting calls it takes')
    .option('--agent <id>', 'only runs of this agent')
    .option('--resource <id>', 'only runs of this tenant (resource id)')
    .option(
      '--where <condition>',
      'a condition on the arguments, e.g. amount<=50 or to$=@example.com (repeat)',
      collect,
      [],
    )
    .option(
      '--fingerprint <sha256>',
      'only the call with this fingerprint, as a dry run listed it (repeat); none that began to wait since',
      collect,
      [],
    )
    .option('--reason <text>', "with decline: why; each run's model sees it")
    .option('--note <text>', "a free-text note for each decision's trail (a ticket)")
    .option('--dry-run', 'send nothing: list what would be decided and what refused')
    .option('--json', 'machine-readable output')
    .action(async (kind: string, o: Flags & { where: string[]; fingerprint: string[] }, cmd: Command) => {
      if (kind !== 'approve' && kind !== 'decline') {
        throw new RequestRefusedError('OptionNotAllowed', `batch takes approve or decline, not "${kind}"`);
      }
      const { as, identified } = decider(cmd);
      const c = await connect(cmd);
      const outcome = await c.decideBatch(
        {
          kind,
          toolName: o.tool as string,
          ...(o.agent ? { agentId: o.agent as string } : {}),
          ...(o.resource ? { resourceId: o.resource as string } : {}),
          where: o.where,
          ...(o.fingerprint.length > 0 ? { fingerprints: o.fingerprint } : {}),
          ...(typeof o.reason === 'string' ? { reason: o.reason } : {}),
          ...(typeof o.note === 'string' ? { by: o.note } : {}),
          ...(identified ? {} : { principal: as }),
        },
        { dryRun: !!o.dryRun },
      );
      const verb = o.dryRun ? `would ${kind}` : VERBS[kind];
      const call = (x: { toolName: string; toolCallId: string; runId: string; args: unknown }) =>
        `${x.toolName} ${x.toolCallId} on run ${x.runId} ${JSON.stringify(x.args).slice(0, 120)}`;
      print(!!o.json, outcome, [
        ...outcome.decided.map((x) => `${verb} ${call(x)}`),
        ...outcome.refused.map((x) => `refused ${call(x)}: ${x.type}: ${x.message}`),
        `${outcome.decided.length} ${o.dryRun ? 'to decide' : 'decided'}, ${outcome.refused.length} refused` +
          (outcome.capped ? '; more calls matched than one batch takes (500): narrow the conditions' : ''),
      ]);
      // A script learns from the exit code that not every call it took was decided.
      if (outcome.refused.length > 0) {
        throw new Refusal(
          `${outcome.refused.length} of ${outcome.decided.length + outcome.refused.length} calls refused`,
        );
      }
    });
}

function collect(value: string, earlier: string[]): string[] {
  return [...earlier, value];
}
