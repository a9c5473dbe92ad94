/**
 * Checks of data against schemas that come from outside (an MCP server's, a run's client tools, an
 * output schema), stopped when they take too long. A pattern can backtrack for hours on some strings
 * (`(a|aa)+` passes every static check), and the worker's activities share one event loop with its
 * heartbeats and every other activity; V8 interrupts a regular expression as any other code when a
 * script's time is up.
 */
import { createContext, runInContext } from 'node:vm';

/** How long the checks of one model step (or one MCP call) may take together. */
export const CHECK_BUDGET_MS = 2_000;

/** What is left of a budget of {@link CHECK_BUDGET_MS}, shared by the checks it is passed to. */
export interface CheckBudget {
  remainingMs: number;
}

export function checkBudget(): CheckBudget {
  return { remainingMs: CHECK_BUDGET_MS };
}

const checking = createContext({});

/**
 * `check()`'s value, or `timedOut` once the budget is spent: a model step with many calls to a tool
 * whose pattern backtracks holds the event loop for one budget, not one per call. Synchronous work only.
 */
export function inTime<T>(check: () => T, budget: CheckBudget = checkBudget()): { value: T } | { timedOut: true } {
  if (budget.remainingMs <= 0) return { timedOut: true };
  const started = performance.now();
  checking.check = check;
  try {
    const timeout = Math.max(1, Math.ceil(budget.remainingMs));
    return { value: runInContext('check()', checking, { timeout }) as T };
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw err;
    return { timedOut: true };
  } finally {
    budget.remainingMs -= performance.now() - started;
    delete checking.check;
  }
}
