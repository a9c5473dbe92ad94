/**
 * What a run's stream showed of the calls its turn records on a thread, where a display transform
 * changes them: HTTP answers and pages show the thread's messages in that form, never the raw values
 * the transcript keeps. Pure.
 */
import type { JsonValue } from '../../schemas/json.js';
import { jsonBytes } from '../../schemas/limits.js';
import type { Message } from '../../schemas/message.js';
import { MAX_SHOWN_BYTES, type ShownCall, type ShownCalls } from '../../schemas/thread.js';

type Part = Record<string, unknown>;

function toolCalls(messages: Message[]): Array<{ toolCallId: string; toolName: string }> {
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as Part[])
          .filter((p) => p.type === 'tool-call' && typeof p.toolCallId === 'string')
          .map((p) => ({ toolCallId: p.toolCallId as string, toolName: String(p.toolName) }))
      : [],
  );
}

/**
 * The display forms of the calls in `messages` whose tool has a display transform (`displayTools`),
 * from the run's stream `chunks`; a call the chunks no longer hold, or past {@link MAX_SHOWN_BYTES},
 * is `null` (not known: shown as not shown). Undefined when no such call is there.
 */
export function shownCalls(
  messages: Message[],
  displayTools: ReadonlySet<string>,
  chunks: readonly unknown[],
): ShownCalls | undefined {
  const wanted = new Set(
    toolCalls(messages)
      .filter((c) => displayTools.has(c.toolName))
      .map((c) => c.toolCallId),
  );
  if (wanted.size === 0) return undefined;
  const seen = new Map<string, NonNullable<ShownCall>>();
  for (const raw of chunks) {
    const chunk = raw as { type?: string; toolCallId?: string; args?: JsonValue; output?: JsonValue; error?: string };
    if (!chunk.toolCallId || !wanted.has(chunk.toolCallId)) continue;
    const entry = seen.get(chunk.toolCallId) ?? {};
    if (chunk.type === 'tool-call') entry.input = chunk.args ?? null;
    else if (chunk.type === 'tool-result') entry.output = chunk.output ?? null;
    else if (chunk.type === 'tool-error') entry.error = chunk.error ?? '';
    else continue;
    seen.set(chunk.toolCallId, entry);
  }
  const shown: ShownCalls = {};
  let bytes = 2;
  for (const id of wanted) {
    const entry = seen.get(id);
    const size = entry ? jsonBytes(entry) + jsonBytes(id) + 2 : 0;
    shown[id] = entry && bytes + size <= MAX_SHOWN_BYTES ? entry : null;
    if (shown[id]) bytes += size;
  }
  return shown;
}
