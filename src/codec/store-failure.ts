/**
 * The failure of a payload store's write. Apart from ./errors.ts, which processes that never touch a
 * store (agentctl's failure table) load without the SDK.
 */
import { ApplicationFailure } from '@temporalio/common';
import { PAYLOAD_STORE_ERROR } from './errors.js';

/**
 * What a failed write to the payload store throws: a non-retryable failure, so that an activity whose
 * result could not be stored is not run again (the SDK would retry it, and a tool with side effects
 * would repeat them); the tool ends as an error the model sees. It names the error's code only, never
 * the store's directory or keys: it reaches the history, clients and HTTP responses.
 */
export function payloadStoreFailure(err: unknown): ApplicationFailure {
  const e = err as { code?: unknown; name?: unknown } | undefined;
  const code = typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : 'an error';
  return ApplicationFailure.create({
    type: PAYLOAD_STORE_ERROR,
    nonRetryable: true,
    message:
      `the payload store could not keep a payload (${code}): the operator must check the store ` +
      '(DURABLE_AGENTS_PAYLOAD_STORE; the worker names it at start); this was not retried',
  });
}
