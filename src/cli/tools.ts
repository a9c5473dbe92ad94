/** agentctl's tools commands: list, describe and run the tools the workers serve (a worker must be up). */
import type { Command } from 'commander';
import { Refusal, type AgentctlIo, type CommandContext } from './common.js';
import { toolLines, toolRunLines, toolsTable } from './format.js';

type Flags = Record<string, string | boolean | undefined>;

export function addToolCommands(program: Command, { connect, print }: CommandContext, io: AgentctlIo): void {
  const tools = program
    .command('tools')
    .description('list, describe and run the tools the workers serve (a worker of the task queue must be up)');

  tools
    .command('list')
    .description('list the tools: id, kind, approval, the agents that have them (agent/name) and what they do')
    .option('--agent <id>', 'only the tools of this agent')
    .option('--json', 'machine-readable output')
    .action(async (o: Flags, cmd: Command) => {
      const c = await connect(cmd);
      const list = await c.listTools({ agentId: o.agent as string | undefined });
      print(!!o.json, list, toolsTable(list));
    });

  tools
    .command('describe')
    .description("describe a tool: its schemas, and each agent's policy for its calls")
    .argument('<id>', 'tool id (as `tools list` shows it)')
    .option('--agent <id>', 'the agent whose policy to show (needed where tools of several agents share the id)')
    .option('--schema', 'print only its input schema (JSON Schema), for machines')
    .option('--json', 'machine-readable output')
    .action(async (toolId: string, o: Flags, cmd: Command) => {
      const c = await connect(cmd);
      const tool = await c.getTool(toolId, { agentId: o.agent as string | undefined });
      if (o.schema) io.out(JSON.stringify(tool.inputSchema, null, 2));
      else print(!!o.json, tool, toolLines(tool));
    });

  tools
    .command('run')
    .description(
      'run one call of a tool, as a durable run of its agent under its policy (approval, hooks, transforms); ' +
        'the input is checked against its schema first',
    )
    .argument('<id>', 'tool id')
    .argument('<json>', 'the input, as JSON')
    .option('--agent <id>', 'the agent that runs it (needed where several agents have the tool)')
    .option('--require-approval', 'pause the call for approval even where the policy does not')
    .option('--thread <id>', 'thread id')
    .option('--resource <id>', 'resource id')
    .option('--run-id <id>', 'the run id to use')
    .option('--no-wait', 'print the run id once a worker has taken the run (at most 3 s), without waiting for it')
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      [
        '',
        'Waits until the run finishes or pauses. Exit 0 when the tool ran, or the run waits (for approval: it',
        'prints how to approve); 1 when the tool failed or was declined; 2 when the input is not JSON or does',
        'not fit the schema, before anything starts. Examples:',
        '  agentctl tools describe delete-record --schema',
        `  agentctl --as alice tools run delete-record '{"id":"r2"}'   # waits until someone else approves`,
      ].join('\n'),
    )
    .action(async (toolId: string, json: string, o: Flags, cmd: Command) => {
      const { jsonOption } = await import('./input.js');
      const { toolRunOutcome } = await import('../client/tools.js');
      const input = jsonOption(json, '<json> (the tool input)');
      const c = await connect(cmd);
      const started = await c.startToolRun(toolId, input, {
        ...(o.agent ? { agentId: o.agent as string } : {}),
        ...(o.requireApproval ? { requireToolApproval: true } : {}),
        ...(o.thread ? { threadId: o.thread as string } : {}),
        ...(o.resource ? { resourceId: o.resource as string } : {}),
        ...(o.runId ? { runId: o.runId as string } : {}),
      });
      const { runId, agentId, toolName } = started;
      if (o.wait === false) {
        const state = await c.confirmStart(runId);
        if (state === 'queued') io.err(`agentctl: run ${runId} started; no worker has taken it yet`);
        print(!!o.json, { runId, agentId, toolName, state }, [runId]);
        return;
      }
      const result = await c.next(runId);
      print(!!o.json, result, toolRunLines({ toolName, input }, result));
      const outcome = toolRunOutcome(result);
      // The call is what was asked for: its failure is the command's.
      if (outcome?.type === 'error') {
        throw new Refusal(`tool ${toolName} ${outcome.declined ? 'was declined' : 'failed'}: ${outcome.error}`);
      }
    });
}
