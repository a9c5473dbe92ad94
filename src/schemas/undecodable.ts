/**
 * What workflow code is given in place of a payload its worker could not decode: a signal, update,
 * query or input encrypted under a codec key the worker lacks, or a payload-store reference that
 * leads nowhere or to another workflow's payload. The worker hands over `{ $undecodable: <why> }`
 * (see src/codec/undecodable.ts) instead of failing the workflow task on every attempt, and every
 * parse of a message refuses it with that reason ({@link safeParse} in json.ts).
 */

/** The one key of the value a worker hands over for a payload it could not decode. */
export const UNDECODABLE_KEY = '$undecodable';

/** The longest reason a refusal quotes: the reason may come from whoever sent the payload. */
const MAX_REASON = 300;

/** The value workflow code is given for a payload its worker could not decode. */
export function undecodable(reason: string): { [UNDECODABLE_KEY]: string } {
  return { [UNDECODABLE_KEY]: reason.slice(0, MAX_REASON) };
}

/**
 * Why a payload could not be decoded, when `value` stands for one (an object whose only key is
 * `$undecodable`, a string); else undefined.
 */
export function undecodableReason(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== UNDECODABLE_KEY) return undefined;
  const reason: unknown = (value as Record<string, unknown>)[UNDECODABLE_KEY];
  return typeof reason === 'string' ? reason.slice(0, MAX_REASON) : undefined;
}
