/** The updates and query of a grant book, defined once for the book, the run's activity and the client. */
import type { Grant, GrantRequest, RevokeGrant, UseGrant } from '../schemas/grants.js';
import { defineQuery, defineUpdate } from './definitions.js';

/** A grant joins the book (checked by its validator); the answer is the grant as kept. Idempotent by id. */
export const createGrantUpdate = defineUpdate<Grant, [GrantRequest]>('createGrant');

/** A grant is revoked: it approves nothing from then on. The answer is the grant as kept. */
export const revokeGrantUpdate = defineUpdate<Grant, [RevokeGrant]>('revokeGrant');

/**
 * A run asks for a grant that covers a call (from an activity, so that the answer is in the run's
 * history); the book counts the use. Null: none does.
 */
export const useGrantUpdate = defineUpdate<Grant | null, [UseGrant]>('useGrant');

/** The book's grants: live, expired and revoked (until it continues as new without the ended ones). */
export const grantsQuery = defineQuery<Grant[]>('grants');
