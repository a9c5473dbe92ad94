/**
 * agentctl's flags that carry numbers, JSON and files: checked and bounded before anything is sent,
 * refused in one line that quotes at most a little of what was given (never a file's content).
 */
import { readFile, stat } from 'node:fs/promises';
import { errorMessage, InvalidInputError } from '../errors.js';
import { oneLine, type JsonSchema, type JsonValue } from '../schemas/json.js';
import { kib, MAX_INPUT_BYTES, MAX_PAGE_SIZE, clip } from '../schemas/limits.js';
import { ScriptSchema, type Script } from '../schemas/script.js';
import { MAX_OUTPUT_SCHEMA_BYTES } from '../schemas/structured-output.js';

/** The most runs `runs list --limit` lists. */
export const MAX_LIST_LIMIT = 10_000;

/** `--limit N`: a whole number from 1 to {@link MAX_LIST_LIMIT}. */
export function limitOption(text: string): number {
  const n = Number(text);
  if (/^\d+$/.test(text) && n >= 1 && n <= MAX_LIST_LIMIT) return n;
  throw new InvalidInputError('--limit', `"${clip(text, 40)}" is not a whole number from 1 to ${MAX_LIST_LIMIT}`);
}

/** `--page-size N`: a whole number from 1 to the most a page holds. */
export function pageSizeOption(text: string): number {
  const n = Number(text);
  if (/^\d+$/.test(text) && n >= 1 && n <= MAX_PAGE_SIZE) return n;
  throw new InvalidInputError('--page-size', `"${clip(text, 40)}" is not a whole number from 1 to ${MAX_PAGE_SIZE}`);
}

/** `--page-token T`: the text a page printed (base64url, at most 4,096 characters), checked before connecting. */
export function pageTokenOption(text: string): string {
  if (text.length <= 4096 && /^[A-Za-z0-9_-]+$/.test(text)) return text;
  throw new InvalidInputError('--page-token', `"${clip(text, 40)}" is not a token a page printed (base64url)`);
}

/** The longest principal id (`PrincipalSchema`'s bound): `--as` names one. */
const MAX_PRINCIPAL_ID = 256;

/** `--as NAME` (or `AGENTCTL_AS`, named as `flag`): a principal's id, 1 to 256 characters. */
export function asOption(text: string, flag = '--as'): string {
  if (text.length <= MAX_PRINCIPAL_ID) return text;
  throw new InvalidInputError(flag, `is ${text.length} characters long; at most ${MAX_PRINCIPAL_ID}`);
}

/** `start --prompt TEXT`: the run's first message; a blank one would start a run with nothing to do. */
export function promptOption(text: string): string {
  if (text.trim() !== '') return text;
  throw new InvalidInputError('--prompt', 'is empty; say what the agent should do (the run starts from this message)');
}

/** `--max-steps N`: a whole number of at least 1. */
export function stepsOption(text: string): number {
  const n = Number(text);
  if (/^\d+$/.test(text) && n >= 1 && Number.isSafeInteger(n)) return n;
  throw new InvalidInputError('--max-steps', `"${clip(text, 40)}" is not a whole number of at least 1`);
}

/** A flag's JSON value (`--data`, `--result`, `--args`). */
export function jsonOption(text: string, flag: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw new InvalidInputError(flag, `"${clip(text, 60)}" is not valid JSON`);
  }
}

/**
 * `--script FILE`: the script of the scripted model. A file that is not one is refused without its
 * content in the message (it may be anything: a key, a log).
 */
export async function scriptOption(file: string): Promise<Script> {
  const flag = `--script ${file}`;
  const json = await jsonFile(
    flag,
    file,
    MAX_INPUT_BYTES,
    'is not a script: it is not JSON (a script is a JSON list of steps)',
  );
  const parsed = ScriptSchema.safeParse(json);
  if (!parsed.success) {
    // Where and what, but nothing of the file: paths name steps and fields, messages the expected types.
    const problems = parsed.error.issues.map((i) => ({
      path: i.path,
      message: i.code === 'unrecognized_keys' ? 'has fields a script step does not take' : i.message.slice(0, 120),
    }));
    throw new InvalidInputError(flag, `is not a script: ${oneLine(problems).slice(0, 400)}`);
  }
  return parsed.data;
}

/** A JSON file a flag names: at most `maxBytes`, read and parsed, or refused naming the flag (`notJson`: not JSON). */
async function jsonFile(flag: string, file: string, maxBytes: number, notJson: string): Promise<unknown> {
  const size = await stat(file).then(
    (s) => s.size,
    (e: Error) => {
      throw new InvalidInputError(flag, `cannot be read: ${errorMessage(e)}`);
    },
  );
  if (size > maxBytes) throw new InvalidInputError(flag, `is ${kib(size)}; at most ${kib(maxBytes)}`, true);
  const text = await readFile(file, 'utf8').catch((e: Error) => {
    throw new InvalidInputError(flag, `cannot be read: ${errorMessage(e)}`);
  });
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidInputError(flag, notJson);
  }
}

/** `--output-schema <file>`: a JSON schema file, the run's structured output (checked as the client checks it). */
export async function outputSchemaOption(file: string): Promise<JsonSchema> {
  const flag = `--output-schema ${file}`;
  const json = await jsonFile(flag, file, MAX_OUTPUT_SCHEMA_BYTES, 'is not a JSON schema: it is not JSON');
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new InvalidInputError(flag, 'is not a JSON schema object');
  }
  return json as JsonSchema;
}
