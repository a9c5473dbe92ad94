/**
 * What an MCP server answers, taken as untrusted: HTTP responses read up to a bound (and the call's
 * idempotency key sent with the request), call results turned into outcomes for the model, arguments
 * checked against the schema the server listed.
 */
import type { MCPClient } from '@ai-sdk/mcp';
import { clip, kib, MAX_TEXT } from '../../../schemas/limits.js';
import { oneLine, zodFromJsonSchema, type JsonSchema, type JsonValue } from '../../../schemas/json.js';
import { inTime } from '../checked-in-time.js';

/** One tool as the server listed it. */
export type ListedTool = Awaited<ReturnType<MCPClient['listTools']>>['tools'][number];

/** What one call of an MCP tool came to: its output (JSON), or an error the model is told. */
export type McpCallOutcome = { output: JsonValue } | { error: string };

/**
 * Why the arguments do not fit the tool's input schema, where the schema can be checked here. A schema
 * zod cannot read, or one that takes longer than the check's budget (the server's pattern against the
 * model's arguments), is left to the server.
 */
export function inputProblem(tool: ListedTool, args: unknown): string | undefined {
  const checked = inTime(() => {
    let schema;
    try {
      schema = zodFromJsonSchema(tool.inputSchema as JsonSchema);
    } catch {
      return undefined;
    }
    const parsed = schema.safeParse(args);
    return parsed.success ? undefined : oneLine(parsed.error.issues, true);
  });
  return 'value' in checked ? checked.value : undefined;
}

type CallToolResult = Awaited<ReturnType<MCPClient['callTool']>>;

/**
 * A tool's result as the run keeps it: its structured content when it has one, its text when it is all
 * text, else its content items; a result the server marks as an error is an error for the model.
 */
export function callOutcome(toolName: string, result: CallToolResult): McpCallOutcome {
  if ('toolResult' in result) return { output: result.toolResult as JsonValue };
  const content = result.content ?? [];
  const texts = content.flatMap((item) => (item.type === 'text' ? [item.text] : []));
  const allText = texts.length === content.length;
  if (result.isError) {
    const said = allText ? texts.join('\n') : JSON.stringify(content);
    return { error: `MCP tool "${toolName}" answered with an error: ${clip(said, MAX_TEXT)}` };
  }
  if (result.structuredContent !== undefined) return { output: result.structuredContent as JsonValue };
  if (allText) return { output: texts.join('\n') };
  return { output: content as JsonValue };
}

/**
 * `fetch` that reads a response body up to `limit` bytes (more fails the request) and sends the call's
 * idempotency key (`Idempotency-Key`) with a tool call's request, so a server can recognise a retry.
 */
export function boundedFetch(
  limit: number,
  key: () => string | undefined,
  overflow: (reason: string) => void,
): typeof fetch {
  return async (input, init) => {
    const idempotencyKey = key();
    const headers = new Headers(init?.headers);
    if (idempotencyKey) headers.set('Idempotency-Key', idempotencyKey);
    const response = await fetch(input, { ...init, headers });
    if (!response.body) return response;
    let seen = 0;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= limit) return controller.enqueue(chunk);
          const reason = `the server sent more than ${kib(limit)} in one response`;
          controller.error(new Error(reason));
          overflow(reason);
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
