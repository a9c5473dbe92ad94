/**
 * The dev server's side of a run: its persistence requests by operation, read from the server's
 * Prometheus endpoint (`temporal server start-dev --metrics-port`) before and after a measurement.
 * Every write a run causes (history appends, mutable-state updates, task and visibility writes) is
 * one of these, so their counts per run say where the server's time goes.
 */

/** Persistence requests so far, by operation, summed over services and namespaces. */
export async function persistenceRequests(metricsUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('persistence_requests{')) continue;
    const operation = /operation="([^"]+)"/.exec(line)?.[1];
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (operation && Number.isFinite(value)) counts.set(operation, (counts.get(operation) ?? 0) + value);
  }
  return counts;
}

/** What happened between two readings. */
export function difference(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [op, n] of after) {
    const d = n - (before.get(op) ?? 0);
    if (d > 0) out.set(op, d);
  }
  return out;
}
