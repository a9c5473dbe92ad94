/**
 * The policy an agent owns and a run may only tighten: whether a tool call needs approval, and the
 * options a run goes with. Pure; sandbox-safe.
 */
import type { AgentSpec, ToolSpec } from '../schemas/agent-spec.js';
import { readJsonSchema, safeParse } from '../schemas/json.js';
import { clip } from '../schemas/limits.js';
import { mergedModelSettings, modelSettingsProblems } from './model-settings.js';
import { DEFAULT_MAX_STEPS, type RunOptions } from '../schemas/run-options.js';

/** A call pauses for approval before it runs when the run requires it for every call, or the tool for its own. */
export function needsApproval(
  options: Pick<RunOptions, 'requireToolApproval'>,
  tool: Pick<ToolSpec, 'requireApproval'>,
): boolean {
  return options.requireToolApproval === true || tool.requireApproval;
}

/**
 * Whether the agent itself asks for approval of the tool's calls: what its rules, its judge and its
 * grants may stand in for. A client tool the run brought asks as the run says: a run may tighten the
 * agent's policy, and nothing of the agent's loosens that.
 */
export function agentRequires(tool: ToolSpec): boolean {
  return tool.requireApproval && !(tool.kind === 'client' && tool.fromRun === true);
}

/** What a sub-agent's run inherits of the approval policy: approving every call holds for the whole chain. */
export function inheritedApproval(
  options: Pick<RunOptions, 'requireToolApproval'>,
): Pick<RunOptions, 'requireToolApproval'> {
  return options.requireToolApproval ? { requireToolApproval: true } : {};
}

/**
 * Mastra's per-call approval function (`requireToolApproval: ({ toolName }) => ...`). A durable run cannot
 * keep it: a run given one requires approval for every call, as Mastra's durable agents do.
 */
export type ToolApprovalFunction = (call: {
  toolName: string;
  args: unknown;
  requestContext?: unknown;
  workspace?: unknown;
}) => boolean | Promise<boolean>;

/** The warning given when a function is passed as the run's approval policy. */
export const FUNCTION_POLICY_WARNING =
  'requireToolApproval: a function cannot be stored with a durable run, ' +
  'so this run requires approval for every tool call. ' +
  'Pass true or false, or set requireApproval on the tools that need it.';

/**
 * The run option as it can be stored. A function cannot be stored with a durable run, so it falls back
 * to approving every call (fail safe), and `warn` says so.
 */
export function storableApprovalPolicy(
  requireToolApproval: boolean | ToolApprovalFunction | undefined,
  warn: (message: string) => void,
): boolean | undefined {
  if (typeof requireToolApproval !== 'function') return requireToolApproval;
  warn(FUNCTION_POLICY_WARNING);
  return true;
}

/** What a run may ask for, measured against what its agent allows. */
export type RunOptionsCheck = { allowed: true; options: RunOptions } | { allowed: false; problems: string[] };

/**
 * The options a run goes with. The agent owns its approval policy, tools, instructions, model and
 * step limit (its `defaultOptions` and spec); a run may tighten them (approval of every call, fewer
 * tools, fewer steps) and set what callers may set (thread, resource, model settings, tool choice),
 * but never loosen them: an option that would is refused, naming it.
 */
export function effectiveRunOptions(
  spec: AgentSpec,
  run: RunOptions,
  {
    fromParent = false,
    namedContextKeys = () => true,
    modelSettingsBounds = () => true,
    continued = false,
  }: {
    fromParent?: boolean;
    /**
     * Whether a request context key the agent's schema does not name is refused; asked only when a run
     * has one (a patch: runs from before took them).
     */
    namedContextKeys?: () => boolean;
    /**
     * Whether the agent's model settings bound the run's (a ceiling on output tokens, its own provider
     * options) and are merged with them key by key; asked only when a run sets model settings (a patch:
     * runs from before replaced the agent's settings with their own, unchecked).
     */
    modelSettingsBounds?: () => boolean;
    /**
     * A run continued as new, with the options its first history took: they are merged as there, not
     * refused (a run from before the bounds goes on with what it was started with).
     */
    continued?: boolean;
  } = {},
): RunOptionsCheck {
  const agent = spec.defaultOptions ?? {};
  const may = new Set(spec.overridable ?? []);
  const problems: string[] = [];
  const own = { model: agent.model ?? spec.model, instructions: agent.instructions ?? spec.instructions };
  for (const key of ['model', 'instructions'] as const) {
    if (run[key] === undefined || run[key] === own[key] || may.has(key)) continue;
    problems.push(
      `${key}: agent "${spec.id}" owns its ${key}; a run may not set it ` +
        `(the agent allows: ${[...may].join(', ') || 'none'})`,
    );
  }
  if (agent.requireToolApproval === true && run.requireToolApproval === false) {
    problems.push(
      `requireToolApproval: agent "${spec.id}" requires approval of every tool call; a run may not turn it off`,
    );
  }
  if (run.autoResumeApprovals === true && agent.autoResumeApprovals !== true) {
    problems.push(
      `autoResumeApprovals: agent "${spec.id}" does not let a chat message decide an approval; ` +
        'only its defaultOptions may turn that on',
    );
  }
  const limit = agent.maxSteps ?? DEFAULT_MAX_STEPS;
  if (run.maxSteps !== undefined && run.maxSteps > limit) {
    problems.push(`maxSteps: ${run.maxSteps} is more than agent "${spec.id}" allows (${limit})`);
  }
  const clientTools = Object.keys(run.clientTools ?? {});
  const taken = clientTools.filter((name) => spec.tools.some((t) => t.name === name));
  if (taken.length > 0) {
    problems.push(
      `clientTools: agent "${spec.id}" has tools named ${taken.map((n) => `"${n}"`).join(', ')} already; ` +
        "give the run's own tools other names",
    );
  }
  // The run's own client tools are the caller's to offer; the agent's bound is on its own tools.
  const agentTools = [...(agent.activeTools ?? spec.tools.map((t) => t.name)), ...clientTools];
  const extra = (run.activeTools ?? []).filter((name) => !agentTools.includes(name));
  if (extra.length > 0) {
    problems.push(
      `activeTools: agent "${spec.id}" does not offer ${extra.map((n) => `"${n}"`).join(', ')}; ` +
        `its tools are: ${agentTools.join(', ') || '(none)'}`,
    );
  }
  problems.push(...ungatedProviderTools(spec, agent, run));
  const bounded = run.modelSettings !== undefined && modelSettingsBounds();
  if (bounded && !continued) problems.push(...modelSettingsProblems(spec, run.modelSettings));
  // A sub-agent's run carries its parent's request context, which the parent's agent allowed.
  if (!fromParent) problems.push(...requestContextProblems(spec, run, namedContextKeys));
  const requestContext = { ...agent.requestContext, ...run.requestContext };
  if (problems.length > 0) return { allowed: false, problems };
  return {
    allowed: true,
    options: {
      ...agent,
      ...run,
      ...(agent.requireToolApproval || run.requireToolApproval ? { requireToolApproval: true } : {}),
      maxSteps: run.maxSteps ?? limit,
      ...activeToolsOf(agent, run, clientTools),
      ...(bounded ? { modelSettings: mergedModelSettings(agent.modelSettings, run.modelSettings) } : {}),
      ...(Object.keys(requestContext).length > 0 ? { requestContext } : {}),
    },
  };
}

/**
 * The tools a run offers, when it names them: its own list, or the agent's with the run's client tools
 * (a run that brings tools along means them to be offered).
 */
function activeToolsOf(agent: RunOptions, run: RunOptions, clientTools: string[]): Pick<RunOptions, 'activeTools'> {
  if (run.activeTools) return { activeTools: run.activeTools };
  if (agent.activeTools) return { activeTools: [...agent.activeTools, ...clientTools] };
  return {};
}

/**
 * A run that approves every call may not offer a tool the provider runs inside the model call (a web
 * search): no approval could stop its calls, and ignoring the policy for them would be worse. It may
 * leave the tool out with `activeTools`.
 */
function ungatedProviderTools(spec: AgentSpec, agent: RunOptions, run: RunOptions): string[] {
  if (!agent.requireToolApproval && !run.requireToolApproval) return [];
  const active = run.activeTools ?? agent.activeTools;
  return spec.tools
    .filter((t) => t.kind === 'provider' && (!active || active.includes(t.name)))
    .map(
      (t) =>
        `requireToolApproval: this run approves every tool call, but tool "${t.name}" is webSearchTool, which ` +
        "the model's provider runs inside the model call, where no approval can stop it; leave it out of the run " +
        `(activeTools without "${t.name}") or do not require approval of every call`,
    );
}

/** What is wrong with a run's request context: the agent takes none, or it does not fit the agent's schema. */
function requestContextProblems(spec: AgentSpec, run: RunOptions, namedContextKeys: () => boolean): string[] {
  const problems = Object.entries(run.subAgentOptions ?? {})
    .filter(([, sub]) => sub.requestContext !== undefined)
    .map(([key]) => `subAgentOptions.${key}.requestContext: a sub-agent gets the run's own request context`);
  if (run.requestContext === undefined) return problems;
  if (!spec.requestContextSchema) {
    return [
      ...problems,
      `requestContext: agent "${spec.id}" takes no request context (it declares no requestContextSchema)`,
    ];
  }
  const merged = { ...spec.defaultOptions?.requestContext, ...run.requestContext };
  const read = readJsonSchema(spec.requestContextSchema);
  if ('unreadable' in read) {
    return [
      ...problems,
      `requestContext: agent "${spec.id}"'s requestContextSchema cannot be checked in the run (${read.unreadable}); ` +
        'give the agent a schema that zod can rebuild from its JSON schema',
    ];
  }
  // Only keys the schema names reach tools: a loose object schema would let any other through.
  const unnamed = unnamedKeys(spec.requestContextSchema, run.requestContext);
  if (unnamed.length > 0 && namedContextKeys()) {
    const keys = unnamed.map((k) => `"${clip(k, 60)}"`).join(', ');
    return [...problems, `requestContext: agent "${spec.id}"'s requestContextSchema names no ${keys}`];
  }
  const parsed = safeParse(read.schema, merged);
  if (parsed.success) return problems;
  return [...problems, `requestContext does not fit agent "${spec.id}"'s requestContextSchema: ${parsed.error}`];
}

/** The keys of a request context that its agent's JSON schema does not list among its properties. */
export function unnamedKeys(schema: Record<string, unknown>, context: Record<string, unknown>): string[] {
  const properties = schema.properties;
  const named = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
  return Object.keys(context).filter((key) => !named.includes(key));
}
