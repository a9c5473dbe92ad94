/**
 * How each typed error reaches a caller: one table for `agentctl` (exit code, one line on stderr) and
 * the HTTP server (status, JSON error). An error not in the table is unexpected: exit 1, HTTP 500.
 */
import {
  DecisionRefusedError,
  errorMessage,
  InvalidRunOptionsError,
  RunFailedError,
  RunNotFoundError,
  RunNotWaitingError,
} from '../errors.js';

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

type ErrorClass = abstract new (...args: never[]) => Error;

const TABLE: Array<{ error: ErrorClass; httpStatus: number; exitCode: number }> = [
  { error: RunNotFoundError, httpStatus: 404, exitCode: 1 },
  { error: DecisionRefusedError, httpStatus: 409, exitCode: 1 },
  { error: RunNotWaitingError, httpStatus: 409, exitCode: 1 },
  { error: InvalidRunOptionsError, httpStatus: 400, exitCode: 1 },
  { error: RunFailedError, httpStatus: 422, exitCode: 1 },
];

/** What a caller is told about this error. */
export function failureOf(err: unknown): Failure {
  const row = TABLE.find((r) => err instanceof r.error);
  if (!row || !(err instanceof Error)) {
    const message = errorMessage(err);
    return { type: 'InternalError', message, line: message, exitCode: 1, httpStatus: 500, expected: false };
  }
  if (err instanceof DecisionRefusedError) {
    const line = `refused (${err.type}): ${err.reason}`;
    return {
      type: err.type,
      message: err.message,
      line,
      exitCode: row.exitCode,
      httpStatus: row.httpStatus,
      expected: true,
    };
  }
  return {
    type: err.name,
    message: err.message,
    line: err.message,
    exitCode: row.exitCode,
    httpStatus: row.httpStatus,
    expected: true,
  };
}
