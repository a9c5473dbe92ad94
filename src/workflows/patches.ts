/**
 * Every patch the workflows take, listed once with the release that added it. Where the code of a
 * release parts from the code before it, it asks `takes(name)`: false only while a history recorded
 * before the patch replays, true everywhere else (and the marker it records keeps it true on every
 * later replay). A patch is never removed while a release whose runs may still be open took it; see
 * docs/guides/upgrading.md, "Changing workflow code".
 */
import { patched } from '@temporalio/workflow';

/** One patch: its marker id (never renamed), the release that added it, and what it changed. */
export interface Patch {
  readonly id: string;
  readonly release: `${number}.${number}.${number}`;
  readonly change: string;
}

export const PATCHES = {
  guardedStream: {
    id: 'guarded-stream',
    release: '0.1.0',
    change:
      'the stream is guarded: runs from before took the streams library publish signal from anyone, ' +
      'served its long-poll update and took any grace period (src/workflows/stream/legacy-stream.ts)',
  },
  graceEndsOnCancel: {
    id: 'grace-ends-on-cancel',
    release: '0.1.0',
    change: "a cancel request ends a finished run's grace period; runs from before slept it out",
  },
  threadMemory: {
    id: 'thread-memory',
    release: '0.1.0',
    change: 'a thread keeps its conversation; runs on a thread from before replay without it',
  },
  leanHistory: {
    id: 'lean-history',
    release: '0.2.0',
    change:
      'memo and search-attribute writes wait for the end of the workflow task, and the agent is ' +
      'described by a local activity',
  },
  conversationByReference: {
    id: 'conversation-by-reference',
    release: '0.2.0',
    change: 'model calls carry the conversation by reference; runs from before send it whole',
  },
  namedContextKeys: {
    id: 'named-request-context-keys',
    release: '0.3.0',
    change: "a request context key the agent's schema does not name is refused",
  },
  deadlinesFirst: {
    id: 'deadlines-before-decisions',
    release: '0.3.0',
    change:
      "a decision that arrives after its call's deadline fired is refused as late, however the " +
      'timer and the decision were batched',
  },
  threadWriters: {
    id: 'thread-writers',
    release: '0.3.0',
    change: 'a thread refuses writes without the turn key of one of its own runs',
  },
  modelStepWaits: {
    id: 'model-step-waits',
    release: '0.4.0',
    change:
      'a model step its provider refuses, or fails for the whole retry window, waits for a resolution ' +
      '(retry or fail); runs from before failed',
  },
  modelSettingsBounds: {
    id: 'model-settings-bounds',
    release: '0.4.0',
    change:
      "a run's model settings are merged with its agent's key by key, may not raise its maxOutputTokens, " +
      'and may set provider options only where the agent allows; runs from before replaced them unchecked',
  },
  mcpServerWaits: {
    id: 'mcp-server-waits',
    release: '0.4.0',
    change:
      "a call of an MCP tool whose server is unavailable is retried within the agent's retry window, then " +
      'waits for a resolution (retry, skip or fail); runs from before told the model it failed after 3 attempts',
  },
  boundedSchemaChecks: {
    id: 'bounded-schema-checks',
    release: '0.4.0',
    change:
      "workflow code checks data against an outside tool's schema (a client tool's, an MCP server's) without " +
      'its patterns, and refuses a check that would cost too much; runs from before ran them whole',
  },
  approvalRules: {
    id: 'approval-rules',
    release: '0.4.0',
    change:
      "a call that needs approval is first put to the agent's approval rules, which may allow or deny it " +
      'without a person; runs from before asked a person for every such call',
  },
  previews: {
    id: 'tool-previews',
    release: '0.4.0',
    change:
      'a call of a tool with a preview shows it, is bound to it, and waits again where it changed by the ' +
      'time the call runs; runs from before asked without one',
  },
  approvalJudge: {
    id: 'approval-judge',
    release: '0.4.0',
    change:
      "a call its approval rules hand to a person is first put to the agent's model judge, which may deny " +
      'it, hand it on, or (where allowed) approve it; runs from before asked a person',
  },
  grants: {
    id: 'standing-grants',
    release: '0.4.0',
    change:
      'a call of a tool the agent lets grants cover is first put to its grant book: a standing grant whose ' +
      'creator could approve it approves it; runs from before asked a person',
  },
} as const satisfies Record<string, Patch>;

export type PatchName = keyof typeof PATCHES;

/** Whether this run takes the change `name` made (false only while a history from before replays). */
export function takes(name: PatchName): boolean {
  return patched(PATCHES[name].id);
}
