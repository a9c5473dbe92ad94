/**
 * Mastra's `new Memory()` (`@mastra/memory`), so an agent defined as the reference pages define it
 * keeps its form: `memory: new Memory({ options: { lastMessages: 20 } })` is the same agent as
 * `memory: { lastMessages: 20 }`. A run's history and its thread's workflow are where memory is kept,
 * so Mastra's storage, vector store and embedder have no place here and are refused by name.
 */
import { rejectUnknownKeys } from './options.js';
import type { MemoryOptions } from './schemas/thread.js';

/** What `new Memory()` takes: Mastra's `options` (`lastMessages`, `workingMemory`, ...). */
export interface MemoryConfig {
  /** The agent's memory options, as `defineAgent({ memory })` takes them. */
  options?: MemoryOptions;
}

const REFUSED: Record<string, string> = {
  storage: "a run's Temporal history and its thread's workflow keep its messages; there is no storage to set",
  vector: 'semantic recall is not supported, so there is no vector store to set',
  embedder: 'semantic recall is not supported, so there is no embedder to set',
  processors: 'memory processors are not supported; shape what the model sees with transforms on the agent',
};

const isObject = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const shown = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

/** An agent's memory, in Mastra's form: give it as `defineAgent({ memory: new Memory() })`. */
export class Memory {
  readonly options: MemoryOptions;

  constructor(config: MemoryConfig = {}) {
    if (!isObject(config)) throw new TypeError(`new Memory(): takes an object ({ options }), not ${shown(config)}`);
    for (const key of Object.keys(config)) {
      if (Object.hasOwn(REFUSED, key)) throw new TypeError(`new Memory(): ${key}: ${REFUSED[key]}`);
    }
    rejectUnknownKeys('new Memory()', config, ['options']);
    if (config.options !== undefined && !isObject(config.options)) {
      throw new TypeError(
        'new Memory(): options must be an object of memory options (lastMessages, workingMemory, ...), ' +
          `not ${shown(config.options)}`,
      );
    }
    this.options = config.options ?? {};
  }
}

/** The options an agent's `memory` stands for, in either form. */
export function memoryOptionsOf(memory: MemoryOptions | Memory | undefined): MemoryOptions | undefined {
  return memory instanceof Memory ? memory.options : memory;
}
