/**
 * agentctl, the ops CLI: find runs, show them, approve, decline or resume their tool calls, and
 * start runs, against any Temporal address. It keeps no state: everything comes from Temporal.
 * Exit 0 on success; 1 with one line on stderr for a refusal or failure; 2 for a usage error.
 */
import { Command, CommanderError } from 'commander';
import type { RunResult } from '../schemas/run-result.js';
import type { AgentClient } from '../client/agent-client.js';
import { defaultIo, Refusal, type AgentctlIo, type CommandContext, type GlobalOptions } from './common.js';
import { addAuditCommands } from './audit.js';
import { addGrantCommands } from './grants.js';
import { addDecisionCommands } from './decisions.js';
import { addMcpCommand } from './mcp.js';
import { addRunsListCommand } from './runs-list.js';
import { addThreadCommands } from './threads.js';
import { addToolCommands } from './tools.js';
import { buildsTable, objectLines, resultLines, runLines } from './format.js';
import { failureOf } from '../client/failures.js';
import { StructuredOutputError } from '../errors.js';
import type { StartOptions } from '../client/runs/run-input.js';
import { shownPending } from '../schemas/shown-pending.js';

/** Runs agentctl with these arguments; returns the exit code. */
export async function main(argv: string[], io: AgentctlIo = defaultIo): Promise<number> {
  let client: AgentClient | undefined;
  let checked: Promise<unknown> | undefined;
  const connect: CommandContext['connect'] = async (cmd) => {
    const g = cmd.optsWithGlobals<GlobalOptions>();
    // Loaded here, not at the top: the Temporal client, gRPC and zod take most of a start, and --help
    // and usage errors need none of them.
    const { operatorIdentity } = await import('./identity.js');
    const { principal, signingKey } = await operatorIdentity(g);
    const { AgentClient } = await import('../client/agent-client.js');
    const { connectClient } = await import('../client/connect.js');
    const settings = {
      address: g.address,
      namespace: g.namespace,
      taskQueue: g.taskQueue,
      profile: g.profile,
      codec: g.codecKeysFile
        ? await (await import('../codec/payload-codec.js')).loadPayloadCodec({ keysFile: g.codecKeysFile })
        : undefined,
      warn: io.err,
      ...(principal ? { principal } : {}),
      ...(signingKey ? { signingKey } : {}),
    };
    // A channel made ready is enough: the first request, the search-attribute check below, meets any
    // refusal the server would have given to GetSystemInfo.
    client ??= new AgentClient(await connectClient(settings, 'channel'));
    // Once per process, before any command reads the namespace: a namespace without the runs' search
    // attributes is named, with the command that creates them, rather than failing a list obscurely.
    checked ??= client.checkSearchAttributes({ create: g.createSearchAttributes });
    await checked;
    return client;
  };
  const print: CommandContext['print'] = (json, value, lines) => {
    io.out(json ? JSON.stringify(value, null, 2) : lines.join('\n'));
  };

  const program = new Command('agentctl')
    .description(
      'Find, inspect, approve, decline, resume, submit client tool results for, resolve uncertain calls of, ' +
        'and start durable agent runs in a Temporal namespace; list, describe and run the tools its workers serve; ' +
        'list threads and show their messages, working memory and task lists; ' +
        'list the builds of the Worker Deployments and the runs that still need each.',
    )
    .option('--address <host:port>', 'Temporal address (else TEMPORAL_ADDRESS, the config profile, or localhost:7233)')
    .option('--namespace <name>', 'Temporal namespace (else TEMPORAL_NAMESPACE, the profile, or default)')
    .option('--task-queue <name>', 'task queue for `start` and `tools` (else TEMPORAL_TASK_QUEUE or durable-agents)')
    .option('--profile <name>', 'profile of the Temporal config file (else TEMPORAL_PROFILE or default)')
    .option('--as <who>', "who you are (an id), for the decision trail and the agent's policy (else AGENTCTL_AS)")
    .option(
      '--identity <file>',
      "the approvers' keys file the workers trust (DECISION_PUBLIC_KEYS): you are the principal, roles and all, " +
        'it binds your --signing-key to (else AGENTCTL_IDENTITY)',
    )
    .option('--signing-key <file>', 'sign decisions with this Ed25519 private key (PEM; else DECISION_SIGNING_KEY)')
    .option('--key-id <id>', 'the id the workers know the signing key by (else DECISION_SIGNING_KEY_ID)')
    .option(
      '--create-search-attributes',
      "create the runs' search attributes where the namespace lacks them and your credentials allow " +
        '(else DURABLE_AGENTS_CREATE_SEARCH_ATTRIBUTES)',
    )
    .option(
      '--codec-keys-file <path>',
      'payload codec keys, "<keyId>:<base64 key>" entries, current first ' +
        '(else DURABLE_AGENTS_CODEC_KEYS or DURABLE_AGENTS_CODEC_KEYS_FILE)',
    )
    .addHelpText(
      'after',
      '\nTracing: with OTEL_EXPORTER_OTLP_ENDPOINT set, each run started here is an OpenTelemetry\n' +
        'trace, and each decision sent from here a span (see docs/guides/cluster.md, "Tracing").\n' +
        '\nLarge payloads: with DURABLE_AGENTS_PAYLOAD_STORE set as for the workers (a directory or s3://<bucket>),\n' +
        'results and histories that hold references to the payload store are read from it (docs/large-payloads.md).',
    )
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride()
    .showHelpAfterError('(agentctl --help lists the commands)');

  const runs = program.command('runs').description('list and show runs');
  addRunsListCommand(runs, { connect, print });
  runs
    .command('show')
    .description('show a run: status, pending tool calls, decision trail, and its result once finished')
    .argument('<run>', 'run id')
    .option('--json', 'machine-readable output')
    .action(async (runId: string, o: { json?: boolean }, cmd: Command) => {
      const c = await connect(cmd);
      const info = await c.getRun(runId);
      let result: RunResult | undefined;
      let failure: string | undefined;
      if (info.workflowStatus === 'COMPLETED') result = await c.result(runId);
      if (info.workflowStatus === 'FAILED')
        failure = await c.result(runId).then(
          () => undefined,
          (e: Error) => e.message,
        );
      const lines = runLines(info);
      if (result)
        lines.push(
          `result: ${result.text} ` +
            `(${result.finishReason}, ${result.steps.length} steps, ${result.usage.totalTokens} tokens)`,
        );
      if (result) lines.push(...objectLines(result));
      if (failure) lines.push(`failure: ${failure}`);
      const shown = { ...info, pendingToolCalls: info.pendingToolCalls.map(shownPending) };
      print(!!o.json, { ...shown, ...(result ? { result } : {}), ...(failure ? { failure } : {}) }, lines);
    });

  runs
    .command('message')
    .description(
      'send a message to a run while it works: its model reads it at the next step (refused while it waits ' +
        'on a call, at its last step, or once it ended)',
    )
    .argument('<run>', 'run id')
    .argument('<text>', 'the message')
    .option('--message-id <id>', 'its id: sent again with the same id (a retry), it is queued once')
    .option('--json', 'machine-readable output')
    .action(async (runId: string, text: string, o: { messageId?: string; json?: boolean }, cmd: Command) => {
      const c = await connect(cmd);
      const ack = await c.sendMessage(runId, text, o.messageId ? { messageId: o.messageId } : {});
      print(!!o.json, ack, [`queued for the next step of run ${runId} (number ${ack.position} in line)`]);
    });

  program
    .command('builds')
    .description(
      'list the builds of the Worker Deployments, newest first, with the runs each still has: pinned ones ' +
        '(running, waiting) need its workers; a build that is neither current nor ramping with none pinned can retire',
    )
    .option('--deployment <name>', 'only the builds of this Worker Deployment')
    .option('--json', 'machine-readable output')
    .action(async (o: { deployment?: string; json?: boolean }, cmd: Command) => {
      const c = await connect(cmd);
      const builds = await c.listBuilds(o.deployment ? { deploymentName: o.deployment } : {});
      print(!!o.json, builds, buildsTable(builds));
    });

  addDecisionCommands(program, { connect, print });
  addToolCommands(program, { connect, print }, io);
  addThreadCommands(program, { connect, print });
  addAuditCommands(program, { connect, print }, io);
  addGrantCommands(program, { connect, print });
  addMcpCommand(program, { connect, print });
  program
    .command('start')
    .description('start a run and wait until it pauses or finishes')
    .argument('<agent>', 'agent id')
    .requiredOption('--prompt <text>', 'the user message')
    .option('--model <name>', 'model for this run, e.g. scripted or openai/gpt-4o-mini')
    .option('--script <file>', 'JSON file with the script of the scripted model (a list of steps)')
    .option(
      '--thread <id>',
      'thread id; where the agent auto-resumes (autoResumeSuspendedTools), a run of it waiting there takes the ' +
        'prompt as its answer instead, and its id is printed',
    )
    .option('--resource <id>', 'resource id')
    .option('--max-steps <n>', 'most model calls')
    .option('--require-approval', 'pause every tool call for approval')
    .option(
      '--output-schema <file>',
      'JSON schema file: the final answer is an object that fits it (structured output)',
    )
    .option('--run-id <id>', 'the run id to use')
    .option('--no-wait', 'print the run id once a worker has taken the run (at most 3 s), without waiting for it')
    .option('--json', 'machine-readable output')
    .action(async (agentId: string, o: Record<string, string | boolean | undefined>, cmd: Command) => {
      const { outputSchemaOption, promptOption, scriptOption, stepsOption } = await import('./input.js');
      const prompt = promptOption(o.prompt as string);
      const options: StartOptions = {
        ...(o.model ? { model: o.model as string } : {}),
        ...(o.thread ? { threadId: o.thread as string } : {}),
        ...(o.resource ? { resourceId: o.resource as string } : {}),
        ...(o.maxSteps ? { maxSteps: stepsOption(o.maxSteps as string) } : {}),
        ...(o.requireApproval ? { requireToolApproval: true } : {}),
        ...(o.runId ? { runId: o.runId as string } : {}),
        ...(o.outputSchema ? { structuredOutput: { schema: await outputSchemaOption(o.outputSchema as string) } } : {}),
      };
      if (o.script) {
        options.script = await scriptOption(o.script as string);
        options.model ??= 'scripted';
      }
      const c = await connect(cmd);
      const { runId } = await c.start(agentId, prompt, options);
      if (o.wait === false) {
        // A run that fails at once (an unknown agent) is reported, not left for someone to find.
        const state = await c.confirmStart(runId);
        if (state === 'queued') io.err(`agentctl: run ${runId} started; no worker has taken it yet`);
        print(!!o.json, { runId, state }, [runId]);
        return;
      }
      const result = await c.next(runId);
      print(!!o.json, result, resultLines(result));
      // A script that asked for structured output learns from the exit code that it has none.
      if (result.objectError !== undefined) throw new StructuredOutputError(runId, result.objectError, result.text);
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof Refusal) {
      io.err(`agentctl: ${err.message}`);
      return 1;
    }
    const failure = failureOf(err);
    io.err(`agentctl: ${failure.line}`);
    return failure.exitCode;
  } finally {
    await client?.close();
  }
}
