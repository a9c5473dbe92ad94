/**
 * Typed errors, and how to tell what was thrown. Sandbox-safe: no Node APIs here, and nothing from the
 * rest of src/: every layer may throw them.
 *
 * Each error says what went wrong, with the offending value, and what to do. The `name` of the errors
 * thrown inside activities is also their Temporal failure type.
 */
export * from './errors/worker-errors.js';
export * from './errors/request-errors.js';
export * from './errors/run-errors.js';
export * from './errors/decision-errors.js';

/** The message of anything thrown. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
