/**
 * What the model's provider did inside one model call, as the run records it: the calls it ran itself
 * (`providerExecuted` tool calls and results, e.g. a web search) and the sources it found or cited.
 * Pure; the model activity calls it with the step's content.
 */
import { toolCallFingerprint } from '../../../approvals/fingerprint.js';
import type { JsonValue } from '../../../schemas/json.js';
import { clip, jsonBytes, kib, MAX_DATA_BYTES, MAX_ID } from '../../../schemas/limits.js';
import { SOURCE_LIMITS, type SourceRecord } from '../../../schemas/run-result.js';
import type { CallModelOutput, ProviderToolCall } from '../../../protocol/activities.js';
import { toJson } from '../tools/transform-payload.js';

/** A part of a model step's content, as the AI SDK gives it (only the fields read here). */
export interface StepContentPart {
  type: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: unknown;
  error?: unknown;
  providerExecuted?: boolean;
  sourceType?: string;
  id?: string;
  url?: string;
  title?: string;
}

/**
 * The provider's calls with their outcomes, in the order the provider made them, and the step's URL
 * sources (each URL once, at most {@link SOURCE_LIMITS}`.perStep`; a URL over the bound is dropped, since a
 * clipped URL leads elsewhere). Both are left out when there are none.
 */
export function providerResults(
  runId: string,
  content: readonly StepContentPart[],
): Pick<CallModelOutput, 'providerCalls' | 'sources'> {
  const calls = new Map<string, Omit<ProviderToolCall, 'outcome'> & { outcome?: ProviderToolCall['outcome'] }>();
  const sources: SourceRecord[] = [];
  const urls = new Set<string>();
  for (const part of content) {
    if (part.type === 'tool-call' && part.providerExecuted && part.toolCallId !== undefined) {
      const toolName = part.toolName ?? '';
      const args = toJson(part.input ?? {});
      const fingerprint = toolCallFingerprint({ runId, toolCallId: part.toolCallId, toolName, args });
      calls.set(part.toolCallId, { toolCallId: part.toolCallId, toolName, args, fingerprint });
    } else if ((part.type === 'tool-result' || part.type === 'tool-error') && part.providerExecuted) {
      const call = part.toolCallId !== undefined ? calls.get(part.toolCallId) : undefined;
      if (call)
        call.outcome = part.type === 'tool-result' ? keptOutput(call.toolName, part.output) : failed(part.error);
    } else if (part.type === 'source' && part.sourceType === 'url' && typeof part.url === 'string') {
      if (urls.has(part.url) || part.url.length > SOURCE_LIMITS.urlChars || sources.length >= SOURCE_LIMITS.perStep) {
        continue;
      }
      urls.add(part.url);
      sources.push({
        sourceType: 'url',
        id: clip(part.id ?? `source-${sources.length}`, MAX_ID),
        url: part.url,
        ...(typeof part.title === 'string' && part.title ? { title: clip(part.title, SOURCE_LIMITS.titleChars) } : {}),
      });
    }
  }
  const providerCalls = [...calls.values()].map((call): ProviderToolCall => ({
    ...call,
    outcome: call.outcome ?? { type: 'error', error: 'The provider sent no result for this call.' },
  }));
  return {
    ...(providerCalls.length > 0 ? { providerCalls } : {}),
    ...(sources.length > 0 ? { sources } : {}),
  };
}

/** The provider's output, unless it is too large to keep in the run's steps (the model has read it anyway). */
function keptOutput(toolName: string, output: unknown): ProviderToolCall['outcome'] {
  const value: JsonValue = toJson(output);
  const bytes = jsonBytes(value);
  if (bytes <= MAX_DATA_BYTES) return { type: 'result', output: value };
  return {
    type: 'error',
    error:
      `The provider's result of "${toolName}" is ${kib(bytes)} of JSON, over ${kib(MAX_DATA_BYTES)}; ` +
      'the run does not keep it.',
  };
}

/** A call the provider reports as failed (for a web search, `{ status }` other than `completed`). */
function failed(error: unknown): ProviderToolCall['outcome'] {
  const detail = typeof error === 'string' ? error : JSON.stringify(toJson(error));
  return { type: 'error', error: `The provider reports that the call failed: ${clip(detail, 500)}` };
}
