/**
 * What the HTTP server tells a caller about a failure: typed refusals say what and why, but nothing
 * from inside (provider error bodies, internal URLs, stack traces) reaches a response.
 */

/** Failures whose reasons are ours (about the caller's request), and safe to show. */
const OWN_FAILURES = new Set([
  'InvalidRunInput',
  'RunOptionsNotAllowed',
  'NotAllowed',
  'UnknownAgentError',
  'UnknownModelError',
  'ScriptExhaustedError',
  'ConversationTooLarge',
]);

/** The reason a run failed, as a caller over HTTP sees it. */
export function publicRunFailure(failureType: string | undefined, reason: string): string {
  if (failureType && OWN_FAILURES.has(failureType)) return reason.replace(/\bhttps?:\/\/\S+/g, '<url>');
  return `the run failed (${failureType ?? 'unknown cause'}); an operator can read why in its history`;
}
