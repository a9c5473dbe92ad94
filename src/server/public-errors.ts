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

/**
 * Failures whose reason goes on to describe the worker (the agents it has, the models it knows): a
 * caller hears only what was not found, up to the first colon.
 */
const WORKER_DETAIL = new Set(['UnknownAgentError', 'UnknownModelError']);

/** The reason a run failed, as a caller over HTTP sees it. */
export function publicRunFailure(failureType: string | undefined, reason: string): string {
  if (failureType && WORKER_DETAIL.has(failureType)) return reason.split(':')[0]!;
  if (failureType && OWN_FAILURES.has(failureType)) return reason.replace(/\bhttps?:\/\/\S+/g, '<url>');
  return `the run failed (${failureType ?? 'unknown cause'}); an operator can read why in its history`;
}

/** URLs, IPv4 and bracketed IPv6 addresses (with ports), and `host:port` pairs. */
const ADDRESSES = [
  /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi,
  /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g,
  /\[[0-9a-f:.]+\](?::\d{1,5})?/gi,
  /\b[a-z0-9-]+(?:\.[a-z0-9-]+)+:\d{1,5}\b/gi,
];

/**
 * A tool's error as a caller over HTTP (and the stream's reader) sees it: what the tool said, without
 * the addresses the worker reached (an internal database, a service's URL). The model still reads the
 * whole text: it is the tool's answer to it.
 */
export function publicToolError(text: string): string {
  return ADDRESSES.reduce((shown, pattern) => shown.replace(pattern, '<address>'), text);
}
