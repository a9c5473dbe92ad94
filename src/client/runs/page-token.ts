/**
 * Pages of a visibility list as the client hands them out: a size within what the server reads at once,
 * and the server's own token for the next page, carried as base64url text behind a digest of the query it
 * continues, so that a token is checked before it is sent and one given with another filter is refused.
 */
import { createHash } from 'node:crypto';
import { isGrpcServiceError } from '@temporalio/client';
import { z } from 'zod';
import { InvalidInputError } from '../../errors.js';
import { MAX_PAGE_SIZE } from '../../schemas/limits.js';
import { checkInput } from '../checks.js';

const PageSizeSchema = z.number().int().min(1).max(MAX_PAGE_SIZE);
// Temporal's own tokens are a few hundred bytes; the bound keeps a forged one from costing more.
const PageTokenSchema = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[A-Za-z0-9_-]+$/, 'is not a page token (base64url)');
/** gRPC's UNKNOWN and INVALID_ARGUMENT (the enum is @grpc/grpc-js's, a package this one does not import). */
const GRPC_UNKNOWN = 2;
const GRPC_INVALID_ARGUMENT = 3;
/** The bytes of the query's digest a token starts with. */
const QUERY_DIGEST_BYTES = 8;

const queryDigest = (query: string): Buffer =>
  createHash('sha256').update(query).digest().subarray(0, QUERY_DIGEST_BYTES);

/** The page size asked for, checked (default 100). */
export function pageSizeOf(pageSize: unknown): number {
  return checkInput('pageSize', PageSizeSchema, pageSize ?? 100);
}

/** The token asked for, checked against the query it must continue, as the server's bytes (empty: the first page). */
export function pageTokenBytes(pageToken: unknown, query: string): Uint8Array {
  if (pageToken === undefined) return Buffer.alloc(0);
  const token = Buffer.from(checkInput('pageToken', PageTokenSchema, pageToken), 'base64url');
  if (token.length <= QUERY_DIGEST_BYTES || !token.subarray(0, QUERY_DIGEST_BYTES).equals(queryDigest(query))) {
    throw new InvalidInputError(
      'pageToken',
      'not the token of a page of this list (a token continues the list, with the filter, it was given for): ' +
        'pass the nextPageToken of the page before, or none for the first page',
    );
  }
  return token.subarray(QUERY_DIGEST_BYTES);
}

/** The server's token for the next page as text, bound to its query, or none at the last page. */
export function pageTokenText(next: Uint8Array | null | undefined, query: string): string | undefined {
  return next && next.length > 0 ? Buffer.concat([queryDigest(query), next]).toString('base64url') : undefined;
}

/**
 * The refusal for a list Temporal would not read with the caller's token, if that may be why. Only for a
 * token the caller gave: a continuation of the client's own is never blamed.
 */
export function pageTokenRefusal(err: unknown, token: Uint8Array): InvalidInputError | undefined {
  // Only a token makes a query of ours one the server cannot take. The dev server's SQLite visibility
  // answers a token it cannot read with UNKNOWN ("something went wrong"), others with INVALID_ARGUMENT.
  if (token.length === 0 || !isGrpcServiceError(err)) return undefined;
  if (err.code !== GRPC_INVALID_ARGUMENT && err.code !== GRPC_UNKNOWN) return undefined;
  const code = err.code === GRPC_UNKNOWN ? 'UNKNOWN' : 'INVALID_ARGUMENT';
  return new InvalidInputError(
    'pageToken',
    `Temporal could not read the list with this token (${code}): ` +
      'pass the nextPageToken of the page before, with the same filter, or none for the first page',
  );
}
