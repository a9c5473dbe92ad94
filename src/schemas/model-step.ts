/**
 * A model step that waits on a person: its provider refused the call in a way asking again cannot fix
 * (a wrong key, a bad request), or kept failing for the agent's whole retry window. The run lists it
 * with its waiting calls, as a call of its own (`@model`, a name no tool can have), resolved with
 * `retry` or `fail`. Sandbox-safe.
 */

/** The tool name a waiting model step is listed under. */
export const MODEL_STEP_TOOL = '@model';

/** The call id of the waiting model step of step `stepNumber`. */
export function modelStepCallId(stepNumber: number): string {
  return `@model-step-${stepNumber}`;
}
