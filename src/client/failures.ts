/**
 * How each typed error reaches a caller: one table for `agentctl` (exit code, one line on stderr) and
 * the HTTP server (status, JSON error). An error not in the table is unexpected: exit 1, HTTP 500.
 */
import {
  AccessDeniedError,
  AutoResumeFailedError,
  DecisionRefusedError,
  errorMessage,
  InvalidInputError,
  InvalidRunOptionsError,
  NoWorkerError,
  ReceiptsUnavailableError,
  RequestRefusedError,
  RunAlreadyExistsError,
  RunFailedError,
  RunNotFoundError,
  ThreadNotFoundError,
  RunNotWaitingError,
  RunMessageRefusedError,
  SearchAttributesMissingError,
  UnauthenticatedError,
  StreamClosedError,
  StreamOffsetError,
  StructuredOutputError,
  UnknownToolError,
} from '../errors.js';
import { PAYLOAD_STORE_ERROR } from '../codec/errors.js';

/** A failure as a caller sees it. */
export interface Failure {
  /** The refusal type (e.g. `FingerprintMismatch`) or the error's name. */
  type: string;
  /** The whole message, for HTTP bodies. */
  message: string;
  /** The one line `agentctl` prints after `agentctl: `. */
  line: string;
  exitCode: number;
  httpStatus: number;
  /** Whether this is one of the typed errors (else it is unexpected, and worth logging). */
  expected: boolean;
}

/** Exit 1: refused or failed; exit 2: the command line was wrong (as for usage errors). */
const REFUSED = 1;
const USAGE = 2;

/** Each typed error in the order they are tried (subclasses before their parents). */
const TABLE: Array<{ matches: (err: Error) => boolean; httpStatus: number; exitCode: number; type?: string }> = [
  { matches: (e) => e instanceof RunNotFoundError, httpStatus: 404, exitCode: REFUSED },
  { matches: (e) => e instanceof ThreadNotFoundError, httpStatus: 404, exitCode: REFUSED },
  { matches: (e) => e instanceof UnknownToolError, httpStatus: 404, exitCode: REFUSED },
  { matches: (e) => e instanceof NoWorkerError, httpStatus: 503, exitCode: REFUSED },
  { matches: (e) => e instanceof ReceiptsUnavailableError, httpStatus: 503, exitCode: REFUSED },
  { matches: (e) => e instanceof SearchAttributesMissingError, httpStatus: 503, exitCode: REFUSED },
  { matches: (e) => e instanceof UnauthenticatedError, httpStatus: 401, exitCode: REFUSED, type: 'Unauthenticated' },
  { matches: (e) => e instanceof AccessDeniedError, httpStatus: 403, exitCode: REFUSED, type: 'AccessDenied' },
  {
    matches: (e) => e instanceof DecisionRefusedError && (e.type === 'NotAllowed' || e.type === 'SelfApproval'),
    httpStatus: 403,
    exitCode: REFUSED,
  },
  { matches: (e) => e instanceof DecisionRefusedError, httpStatus: 409, exitCode: REFUSED },
  { matches: (e) => e instanceof RunNotWaitingError, httpStatus: 409, exitCode: REFUSED },
  {
    matches: (e) => e instanceof RunMessageRefusedError && e.type === 'NotAllowed',
    httpStatus: 403,
    exitCode: REFUSED,
  },
  { matches: (e) => e instanceof RunMessageRefusedError, httpStatus: 409, exitCode: REFUSED },
  {
    matches: (e) => e instanceof RequestRefusedError && e.type === 'OptionNotAllowed',
    httpStatus: 403,
    exitCode: USAGE,
  },
  { matches: (e) => e instanceof RequestRefusedError, httpStatus: 400, exitCode: USAGE },
  { matches: (e) => e instanceof InvalidRunOptionsError, httpStatus: 400, exitCode: REFUSED },
  { matches: (e) => e instanceof InvalidInputError && e.tooLarge, httpStatus: 413, exitCode: USAGE },
  { matches: (e) => e instanceof InvalidInputError, httpStatus: 400, exitCode: USAGE },
  { matches: (e) => e instanceof RunAlreadyExistsError, httpStatus: 409, exitCode: REFUSED },
  { matches: (e) => e instanceof StreamOffsetError, httpStatus: 400, exitCode: REFUSED },
  { matches: (e) => e instanceof StreamClosedError, httpStatus: 410, exitCode: REFUSED },
  { matches: (e) => e instanceof RunFailedError, httpStatus: 422, exitCode: REFUSED },
  { matches: (e) => e instanceof StructuredOutputError, httpStatus: 422, exitCode: REFUSED },
  { matches: (e) => e instanceof AutoResumeFailedError, httpStatus: 502, exitCode: REFUSED },
  // The payload store failed to keep what this request sent (the disk full, the bucket unreachable).
  {
    // By name and type, not by class: agentctl loads this table and must not load the SDK for it.
    matches: (e) => e.name === 'ApplicationFailure' && (e as { type?: unknown }).type === PAYLOAD_STORE_ERROR,
    httpStatus: 503,
    exitCode: REFUSED,
    type: PAYLOAD_STORE_ERROR,
  },
];

/** What a caller is told about this error. */
export function failureOf(err: unknown): Failure {
  const row = err instanceof Error ? TABLE.find((r) => r.matches(err)) : undefined;
  if (!row || !(err instanceof Error)) {
    const message = errorMessage(err);
    return { type: 'InternalError', message, line: message, exitCode: 1, httpStatus: 500, expected: false };
  }
  const { httpStatus, exitCode } = row;
  if (err instanceof DecisionRefusedError) {
    const line = `refused (${err.type}): ${err.reason}`.replace(/\s*\n\s*/g, '; ');
    return {
      type: err.type,
      message: err.message.replace(/\s*\n\s*/g, '; '),
      line,
      exitCode,
      httpStatus,
      expected: true,
    };
  }
  const type =
    err instanceof RequestRefusedError || err instanceof RunMessageRefusedError ? err.type : (row.type ?? err.name);
  // A caller sees one line, whatever the message quotes.
  const message = err.message.replace(/\s*\n\s*/g, '; ');
  return { type, message, line: message, exitCode, httpStatus, expected: true };
}
