/**
 * Transforms: what the run's stream shows of a tool call (`display`) and what the stored transcript,
 * which the model reads on later steps, keeps of it (`transcript`). Code on the worker, resolved by
 * name like tools; the run's history records only which stages are transformed. The raw values stay
 * in the run's result, for the application.
 */
import { unknownKeyMessage } from '../options.js';
import type { JsonValue } from '../schemas/json.js';
import { MAX_DATA_BYTES, measureJson } from '../schemas/limits.js';
import type { RequestContext } from './request-context.js';

import {
  DISPLAY_STAGES,
  TRANSCRIPT_STAGES,
  type DisplayStage,
  type TranscriptStage,
} from '../schemas/transform-stages.js';

export { DISPLAY_STAGES, TRANSCRIPT_STAGES, type DisplayStage, type TranscriptStage };

/** What a transform is told besides the value. */
export interface TransformContext {
  runId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  target: 'display' | 'transcript';
  stage: DisplayStage;
  /** The run's request context. */
  requestContext: RequestContext;
}

/** Maps a payload (JSON) to what the target shows instead. */
export type PayloadTransform = (value: JsonValue, context: TransformContext) => unknown;

/**
 * Maps one piece of a call's streamed input text. Return nothing to drop the piece. A tool whose
 * display transforms its input streams no input deltas unless it has one of these.
 */
export type InputDeltaTransform = (delta: string, context: TransformContext) => string | undefined | null;

/** The transforms of a tool, or of an agent (then they apply to every call of the agent, after the tool's own). */
export interface ToolTransforms {
  display?: Partial<Record<Exclude<DisplayStage, 'inputDelta'>, PayloadTransform>> & {
    inputDelta?: InputDeltaTransform;
  };
  transcript?: Partial<Record<TranscriptStage, PayloadTransform>>;
}

/** Which stages are transformed, as the run's history records it. */
export interface TransformStages {
  display: DisplayStage[];
  transcript: TranscriptStage[];
}

/** What a payload becomes when its transform throws: never the payload itself. */
export const HIDDEN = '[hidden: its transform failed]';

/**
 * Checks a `transform` option: known targets and stages only (a misspelt stage would leave the payload
 * unredacted), each a function.
 */
export function checkTransforms(where: string, transform: unknown): void {
  if (transform === undefined) return;
  if (typeof transform !== 'object' || transform === null) {
    throw new TypeError(`${where}: transform must be an object with display and/or transcript`);
  }
  const stagesOf = { display: DISPLAY_STAGES, transcript: TRANSCRIPT_STAGES } as const;
  for (const [target, stages] of Object.entries(transform)) {
    if (target !== 'display' && target !== 'transcript') {
      throw new TypeError(`${where}: transform: ${unknownKeyMessage(target, ['display', 'transcript'])}`);
    }
    if (typeof stages !== 'object' || stages === null) {
      throw new TypeError(`${where}: transform.${target} must be an object of stage functions`);
    }
    for (const [stage, fn] of Object.entries(stages)) {
      if (!(stagesOf[target] as readonly string[]).includes(stage)) {
        const why =
          target === 'transcript' && (DISPLAY_STAGES as readonly string[]).includes(stage)
            ? ` (the transcript keeps only a call's input, output and error; ${stage} payloads are display only)`
            : '';
        throw new TypeError(`${where}: transform.${target}: ${unknownKeyMessage(stage, stagesOf[target])}${why}`);
      }
      if (typeof fn !== 'function') throw new TypeError(`${where}: transform.${target}.${stage} must be a function`);
    }
  }
}

/** The stages a tool's calls have transformed, by its own transforms and its agent's; undefined when none. */
export function transformStages(
  tool: ToolTransforms | undefined,
  agent: ToolTransforms | undefined,
): TransformStages | undefined {
  const display = DISPLAY_STAGES.filter((s) => tool?.display?.[s] ?? agent?.display?.[s]);
  const transcript = TRANSCRIPT_STAGES.filter((s) => tool?.transcript?.[s] ?? agent?.transcript?.[s]);
  return display.length + transcript.length > 0 ? { display, transcript } : undefined;
}

/** A transformed value, or why it was hidden. */
export type Transformed = { value: JsonValue } | { value: JsonValue; hidden: string };

/**
 * Applies the tool's transform of a stage, then the agent's, to a value. A transform that throws
 * hides the value: the target gets {@link HIDDEN}, and the caller logs `hidden`.
 */
export async function applyTransforms(
  transforms: Array<ToolTransforms | undefined>,
  context: TransformContext,
  value: JsonValue,
): Promise<Transformed> {
  const fns = transforms
    .map((level) => level?.[context.target]?.[context.stage as TranscriptStage] as PayloadTransform | undefined)
    .filter((fn) => fn !== undefined);
  if (fns.length === 0) return { value };
  let current = value;
  for (const fn of fns) {
    try {
      current = asJson(await fn(current, context));
    } catch (err) {
      return { value: HIDDEN, hidden: err instanceof Error ? err.message : String(err) };
    }
  }
  // A transform's answer travels in the run's stream and pending calls: bounded like any data.
  const measured = measureJson(current);
  if (!measured.ok || measured.bytes > MAX_DATA_BYTES) {
    return { value: HIDDEN, hidden: `it returned ${measured.ok ? `${measured.bytes} bytes of JSON` : 'no JSON'}` };
  }
  return { value: current };
}

/**
 * Applies the input-delta transforms to one piece of streamed input: the piece to stream, or null to
 * drop it. Without an input-delta transform, a call whose displayed input is transformed streams none.
 */
export function transformInputDelta(
  transforms: Array<ToolTransforms | undefined>,
  context: TransformContext,
  delta: string,
): string | null {
  const fns = transforms.map((t) => t?.display?.inputDelta).filter((fn) => fn !== undefined);
  if (fns.length === 0) return transforms.some((t) => t?.display?.input) ? null : delta;
  let current: string | null = delta;
  for (const fn of fns) {
    try {
      const next: unknown = fn(current, context);
      current = typeof next === 'string' ? next : null;
    } catch {
      current = null;
    }
    if (current === null) return null;
  }
  return current;
}

function asJson(value: unknown): JsonValue {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
}
