/** Who a client acts as: the principal it starts runs and decides in the name of. */
import { z } from 'zod';
import { InvalidRunOptionsError } from '../errors.js';
import { PrincipalSchema, type Principal } from '../schemas/access.js';

/** A principal, or just its id. */
export type PrincipalInput = Principal | string;

/**
 * The principal as it is sent and recorded: checked and bounded, with `via` saying which Temporal
 * client identity it came through (the server sets its own `via`, e.g. `http:bearer`).
 */
export function principalOf(
  input: PrincipalInput | undefined,
  clientIdentity: string | undefined,
): Principal | undefined {
  if (input === undefined) return undefined;
  const principal = typeof input === 'string' ? { id: input } : input;
  const parsed = PrincipalSchema.safeParse({
    ...principal,
    via: principal.via ?? `operator${clientIdentity ? ` (${clientIdentity})` : ''}`,
  });
  if (!parsed.success) throw new InvalidRunOptionsError(`principal: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
