/**
 * Options objects checked for keys we do not know: a misspelt or unsupported option is an error that
 * names it and the nearest known one, never an option silently ignored.
 */

/** Edit distance between two words (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The known key nearest to `key`, when one is near enough to be what was meant. */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: { key: string; d: number } | undefined;
  for (const candidate of known) {
    const d = distance(key.toLowerCase(), candidate.toLowerCase());
    if (!best || d < best.d) best = { key: candidate, d };
  }
  return best && best.d <= Math.max(2, Math.floor(key.length / 3)) ? best.key : undefined;
}

/** How an unknown key is named in an error: with the known key it is nearest to, or the known keys. */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const near = nearestKey(key, known);
  return near
    ? `unknown option "${key}" (did you mean "${near}"?)`
    : `unknown option "${key}" (known: ${known.join(', ')})`;
}

/** Throws a TypeError naming every key of `options` that is not in `known`. */
export function rejectUnknownKeys(where: string, options: object, known: readonly string[]): void {
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length === 0) return;
  throw new TypeError(`${where}: ${unknown.map((key) => unknownKeyMessage(key, known)).join('; ')}`);
}
