/**
 * Who decides whether a tool call needs approval: the run or the tool. Pure; sandbox-safe.
 */
import type { ToolSpec } from '../schemas/agent-spec.js';
import type { RunOptions } from '../schemas/run-options.js';

/** A call pauses for approval before it runs when the run requires it for every call, or the tool for its own. */
export function needsApproval(
  options: Pick<RunOptions, 'requireToolApproval'>,
  tool: Pick<ToolSpec, 'requireApproval'>,
): boolean {
  return options.requireToolApproval === true || tool.requireApproval;
}

/** What a sub-agent's run inherits of the approval policy: approving every call holds for the whole chain. */
export function inheritedApproval(
  options: Pick<RunOptions, 'requireToolApproval'>,
): Pick<RunOptions, 'requireToolApproval'> {
  return options.requireToolApproval ? { requireToolApproval: true } : {};
}

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
  requireToolApproval: boolean | ((...args: never[]) => unknown) | undefined,
  warn: (message: string) => void,
): boolean | undefined {
  if (typeof requireToolApproval !== 'function') return requireToolApproval;
  warn(FUNCTION_POLICY_WARNING);
  return true;
}
