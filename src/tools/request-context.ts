/**
 * The request context a run's code reads: the values the caller (within the agent's
 * `requestContextSchema`) or the server (from the authenticated principal) set for the run. Read-only:
 * it is stored with the run, and every tool, hook and transform of the run, and of its sub-agents,
 * sees the same values.
 */
import type { JsonValue } from '../schemas/json.js';

/** Mastra's `requestContext.get(key)`, over the values stored with the run. */
export class RequestContext {
  private readonly values: ReadonlyMap<string, JsonValue>;

  constructor(values: Record<string, JsonValue> = {}) {
    this.values = new Map(Object.entries(values));
  }

  /** The value of a key, or undefined. */
  get<T extends JsonValue = JsonValue>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  keys(): string[] {
    return [...this.values.keys()];
  }

  entries(): Array<[string, JsonValue]> {
    return [...this.values.entries()];
  }

  get size(): number {
    return this.values.size;
  }

  /** The values as a plain object (what `JSON.stringify` writes). */
  toJSON(): Record<string, JsonValue> {
    return Object.fromEntries(this.values);
  }
}
