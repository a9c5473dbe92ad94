/**
 * A value in a Temporal visibility query. Quoting is where such queries break: on the dev server a
 * backslash before a quote, or at the end, fails the query, and a double quote matches another value
 * (a backslash elsewhere is taken as it is). Ids that are searched for (agent, thread, resource) may
 * hold none of `'`, `"` or `\`: they are refused where a run starts and where a list is filtered, with
 * the reason, rather than matching the wrong runs or none.
 */
import { InvalidInputError } from '../../errors.js';
import { clip } from '../../schemas/limits.js';

const UNQUERYABLE = /['"\\\p{Cc}]/u;

/** Refuses an id that a visibility query cannot match exactly. */
export function checkQueryable(field: string, value: string | undefined): void {
  if (value === undefined || !UNQUERYABLE.test(value)) return;
  throw new InvalidInputError(
    field,
    `${JSON.stringify(clip(value, 60))} holds a quote, a backslash or a control character, which Temporal's ` +
      'visibility queries cannot match exactly (runs are found by it): use letters, digits and -_.:@/',
  );
}

/** The value, checked and quoted for a visibility query. */
export function queryValue(field: string, value: string): string {
  checkQueryable(field, value);
  return `'${value}'`;
}
