/**
 * A route's query parameters, taken strictly: a parameter the route does not know, or one given twice,
 * is refused by name rather than ignored, and a page's size and token are checked as the client checks them.
 */
import type { Context } from 'hono';
import { InvalidInputError } from '../errors.js';
import { clip, MAX_PAGE_SIZE } from '../schemas/limits.js';

/** Each known parameter's one value; a parameter the route does not take, or a repeated one, is refused. */
export function queryParams<K extends string>(
  c: Context,
  route: string,
  known: readonly K[],
): Partial<Record<K, string>> {
  const taken: Partial<Record<K, string>> = {};
  for (const [key, values] of Object.entries(c.req.queries())) {
    if (!(known as readonly string[]).includes(key)) {
      throw new InvalidInputError(clip(key, 60), `not a parameter of ${route} (${known.join(', ')})`);
    }
    // A second value would be dropped without a word; the caller would read a list it did not ask for.
    if (values.length > 1) throw new InvalidInputError(key, 'given more than once: give it once');
    // An empty value (`?agentId=`) means the parameter is not given, as a form would send it.
    if (values[0] !== '') taken[key as K] = values[0];
  }
  return taken;
}

/** `pageSize` as a query gives it: a whole number from 1 to {@link MAX_PAGE_SIZE}, or none. */
export function pageSizeParam(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (/^\d{1,4}$/.test(text) && n >= 1 && n <= MAX_PAGE_SIZE) return n;
  throw new InvalidInputError('pageSize', `"${clip(text, 40)}" is not a whole number from 1 to ${MAX_PAGE_SIZE}`);
}
