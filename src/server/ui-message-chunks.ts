/**
 * Turns a run's chunks into the AI SDK's UI message stream chunks, so that a `useChat` front end
 * renders a durable run (text, tool calls, approval requests, results) with no parsing of its own.
 */
import type { UIMessageChunk } from 'ai';
import type { JsonValue } from '../schemas/json.js';
import type { DataChunk } from '../schemas/data-chunks.js';
import type { AgentProgress, RunStreamChunk } from '../schemas/stream-chunks.js';
import { publicRunFailure, publicToolError } from './public-errors.js';

/** `data-tool-suspended` parts carry a tool's suspend payload to the UI, and the fingerprint to resume it with. */
export interface ToolSuspendedData {
  toolCallId: string;
  toolName: string;
  args: unknown;
  fingerprint: string;
  payload: unknown;
}

/** Message metadata on `start` and `finish`: which run, and where in its stream. */
export interface RunMessageMetadata {
  runId: string;
  offset: number;
  finishReason?: string;
  pendingToolCalls?: unknown[];
}

/** `data-tool-uncertain` parts: an approved call was cut off and waits to be resolved (retry, skip, fail). */
export interface ToolUncertainData {
  toolCallId: string;
  toolName: string;
  args: unknown;
  fingerprint: string;
  reason: string;
}

/**
 * `data-tool-preview` parts, just before a call's approval request: the tool's preview of the call, which
 * the approval (its id, the fingerprint) is bound to, and the one approved before where it changed.
 */
export interface ToolPreviewData {
  toolCallId: string;
  fingerprint: string;
  preview: JsonValue;
  previousPreview?: JsonValue;
}

/** `data-tool-granted` parts: a standing grant approved the call (`by`: who made the grant). */
export interface ToolGrantedData {
  toolCallId: string;
  toolName: string;
  grantId: string;
  by: string;
}

/** `data-tool-resumed` parts: a suspended call was resumed with this data and runs again. */
export interface ToolResumedData {
  toolCallId: string;
  toolName: string;
  resumeData: unknown;
}

/**
 * The data parts of a run's UI message stream: the runner's own, and what tools write
 * (`data-<name>`, any JSON).
 */
export interface RunUIDataTypes {
  'tool-suspended': ToolSuspendedData;
  'tool-uncertain': ToolUncertainData;
  'tool-resumed': ToolResumedData;
  'tool-preview': ToolPreviewData;
  'tool-granted': ToolGrantedData;
  /** A sub-agent's progress (text, tool events, its tools' writes), tagged with it and the delegating call. */
  'agent-progress': AgentProgress;
  [name: string]:
    | JsonValue
    | ToolSuspendedData
    | ToolUncertainData
    | ToolResumedData
    | ToolPreviewData
    | ToolGrantedData
    | AgentProgress;
}

export type RunUIMessageChunk = UIMessageChunk<RunMessageMetadata, RunUIDataTypes>;

/** Marks the UI chunks of a call the model's provider ran (a web search), as the AI SDK does. */
function byProvider(chunk: { providerExecuted?: true }): { providerExecuted?: true } {
  return chunk.providerExecuted ? { providerExecuted: true } : {};
}

/** Maps one run's chunks in order; it keeps which text parts are open. */
export class UiChunkMapper {
  private readonly openText = new Set<string>();

  constructor(private readonly runId: string) {}

  map(chunk: RunStreamChunk): RunUIMessageChunk[] {
    switch (chunk.type) {
      case 'start':
        // One assistant message per run: a resumed segment goes on with the same message.
        return [{ type: 'start', messageId: this.runId, messageMetadata: { runId: this.runId, offset: chunk.offset } }];
      case 'start-step':
        return [{ type: 'start-step' }];
      case 'text-delta': {
        const id = `${chunk.stepNumber}-${chunk.attempt}-${chunk.id}`;
        const start: RunUIMessageChunk[] = this.openText.has(id) ? [] : [{ type: 'text-start', id }];
        this.openText.add(id);
        return [...start, { type: 'text-delta', id, delta: chunk.delta }];
      }
      case 'tool-input-start':
        return [
          { type: 'tool-input-start', toolCallId: chunk.toolCallId, toolName: chunk.toolName, ...byProvider(chunk) },
        ];
      case 'tool-input-delta':
        return [{ type: 'tool-input-delta', toolCallId: chunk.toolCallId, inputTextDelta: chunk.delta }];
      case 'tool-input-end':
        return [];
      case 'model-retry':
        // The UI drops what the failed attempt streamed in this step.
        this.openText.clear();
        return [{ type: 'reset-step' }];
      case 'tool-call':
        return [
          {
            type: 'tool-input-available',
            toolCallId: chunk.toolCallId,
            toolName: chunk.toolName,
            input: chunk.args,
            ...byProvider(chunk),
          },
        ];
      case 'tool-call-approval': {
        // The approval's id is the call's fingerprint: the UI sends it back, bound to this very call.
        const request: RunUIMessageChunk = {
          type: 'tool-approval-request',
          approvalId: chunk.fingerprint,
          toolCallId: chunk.toolCallId,
        };
        if (chunk.preview === undefined) return [request];
        const { toolCallId, fingerprint, preview, previousPreview } = chunk;
        const data = {
          toolCallId,
          fingerprint,
          preview,
          ...(previousPreview !== undefined ? { previousPreview } : {}),
        };
        return [{ type: 'data-tool-preview', id: `${toolCallId}:${fingerprint}`, data }, request];
      }
      case 'tool-call-suspended':
        return [
          {
            type: 'data-tool-suspended',
            id: chunk.toolCallId,
            data: {
              toolCallId: chunk.toolCallId,
              toolName: chunk.toolName,
              args: chunk.args,
              fingerprint: chunk.fingerprint,
              payload: chunk.suspendPayload ?? null,
            },
          },
        ];
      case 'tool-call-uncertain': {
        const { toolCallId, toolName, args, fingerprint, reason } = chunk;
        return [
          { type: 'data-tool-uncertain', id: toolCallId, data: { toolCallId, toolName, args, fingerprint, reason } },
        ];
      }
      case 'tool-call-granted': {
        const { toolCallId, toolName, grantId, by } = chunk;
        return [
          { type: 'data-tool-granted', id: `${toolCallId}-granted`, data: { toolCallId, toolName, grantId, by } },
        ];
      }
      case 'tool-call-resumed': {
        const { toolCallId, toolName, resumeData } = chunk;
        // Its own id: the UI keeps the suspension's part beside the resumption's.
        return [{ type: 'data-tool-resumed', id: `${toolCallId}-resumed`, data: { toolCallId, toolName, resumeData } }];
      }
      case 'tool-result':
        return [
          { type: 'tool-output-available', toolCallId: chunk.toolCallId, output: chunk.output, ...byProvider(chunk) },
        ];
      case 'tool-error':
        return chunk.declined
          ? [{ type: 'tool-output-denied', toolCallId: chunk.toolCallId }]
          : [
              {
                type: 'tool-output-error',
                toolCallId: chunk.toolCallId,
                errorText: publicToolError(chunk.error),
                ...byProvider(chunk),
              },
            ];
      case 'source':
        return [
          { type: 'source-url', sourceId: chunk.id, url: chunk.url, ...(chunk.title ? { title: chunk.title } : {}) },
        ];
      case 'step-finish':
        return [...this.closeText(), { type: 'finish-step' }];
      case 'finish':
        return [
          ...this.closeText(),
          {
            type: 'finish',
            finishReason: chunk.finishReason === 'suspended' ? 'tool-calls' : chunk.finishReason,
            messageMetadata: {
              runId: this.runId,
              offset: chunk.offset,
              finishReason: chunk.finishReason,
              pendingToolCalls: chunk.pendingToolCalls,
            },
          },
        ];
      case 'error':
        // A run's failure, as the HTTP answer says it: in its own terms, nothing of a provider's answer.
        return [...this.closeText(), { type: 'error', errorText: publicRunFailure(chunk.failureType, chunk.error) }];
      default:
        return [dataPart(chunk)];
    }
  }

  private closeText(): RunUIMessageChunk[] {
    const ends = [...this.openText].map((id): RunUIMessageChunk => ({ type: 'text-end', id }));
    this.openText.clear();
    return ends;
  }
}

/** A chunk a tool wrote, or a sub-agent's progress, as the data part it already is. */
function dataPart(chunk: DataChunk & { offset: number }): RunUIMessageChunk {
  const { type, data, id, transient } = chunk;
  return { type, data, ...(id !== undefined ? { id } : {}), ...(transient !== undefined ? { transient } : {}) };
}
