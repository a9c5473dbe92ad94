/**
 * The failure converter of a worker whose payloads are encrypted: a failure's message and stack
 * trace (a tool's error can quote its arguments) go into `encodedAttributes`, a payload the codec
 * encrypts, and the failure itself says "Encoded failure". Any SDK decodes them again. The worker
 * loads this file by path, also into the workflow sandbox, so it imports nothing but
 * `@temporalio/common`.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
