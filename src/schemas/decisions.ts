/**
 * The calls a run waits on, the decisions that continue them, and the trail of those decisions.
 * Sandbox-safe: shared by the workflow, the client and the server.
 */
import { z } from 'zod';
import { REFUSAL_TYPES, type RefusalType } from '../errors/refusal-types.js';
import { AccessRuleSchema, PrincipalSchema } from './access.js';
import { JsonValueSchema } from './json.js';
import { boundedJson, MAX_ID, MAX_QUALIFIED_ID, MAX_TEXT } from './limits.js';
import { StreamGraceMsSchema } from './stream-grace.js';

/** One hop from a run down to the sub-agent run that waits: that run, and the tool call that delegated to it. */
export const PathHopSchema = z.object({ runId: z.string(), agentId: z.string(), viaToolCallId: z.string() });
export type PathHop = z.infer<typeof PathHopSchema>;

/**
 * A tool call the run waits on: for an approval, for resume data after the tool suspended, or for a
 * client tool's result. A call that waits in a sub-agent's run (at any depth) is listed here too,
 * with `path` leading to it and a `toolCallId` qualified by the delegating calls
 * (`<delegating call>/<inner call>`), so that it is unique in this run.
 */
export const PendingToolCallSchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  args: JsonValueSchema,
  fingerprint: z.string(),
  /**
   * `approval`: approve or decline. `suspend`: resume data. `client`: a client tool's result.
   * `uncertain`: a tool that may run only once was cut off (its worker died, it timed out); whether its
   * side effect happened is not known: retry, skip with an output, or fail.
   */
  kind: z.enum(['approval', 'suspend', 'client', 'uncertain']),
  /** true for `approval`; kept for callers that only tell approvals from the rest. */
  requiresApproval: z.boolean(),
  /** The runs below this one that lead to where the call waits; empty when it waits here. */
  path: z.array(PathHopSchema),
  /** What the tool passed to `suspend()`. */
  suspendPayload: JsonValueSchema.optional(),
  /** JSON schema of the resume data the tool takes. */
  resumeSchema: z.record(z.string(), z.unknown()).optional(),
  /** For `uncertain`: what cut the execution off. */
  uncertainty: z.string().optional(),
  /** JSON schema of the tool's input, for an approval with changed arguments. */
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  /** Who may decide it (the owning run's rule for its tool; unset: anyone who may act on the run). */
  decide: AccessRuleSchema.optional(),
  /** Whether the run's starter may decide it (unset: yes). */
  selfApproval: z.boolean().optional(),
  /**
   * Set for an approval that needs several approvers: how many, and the approvals it has so far (each
   * by a distinct principal). It runs once `required` have approved; one decline ends it.
   */
  quorum: z
    .object({
      required: z.number().int().min(2).max(10),
      approvals: z.array(z.object({ principal: z.string(), decisionId: z.string(), at: z.string() }).strict()).max(10),
    })
    .strict()
    .optional(),
  /**
   * Set for an approval of a tool with a `preview`: the preview (a dry run) and the SHA-256 of its
   * canonical JSON, which the call's fingerprint covers. `previous` is the one an approver saw before,
   * where the preview changed after that approval: the call waits again, and runs only on this one.
   */
  preview: z
    .object({
      value: JsonValueSchema,
      hash: z.string(),
      previous: z.object({ value: JsonValueSchema, hash: z.string() }).strict().optional(),
    })
    .strict()
    .optional(),
  /** Set where the agent lets standing grants cover the call's tool: how long a grant of it may live, in hours. */
  grantable: z.object({ maxHours: z.number().int() }).strict().optional(),
  /** Set where the agent's model judge handed the call to a person: its version, and why (or why it could not). */
  judged: z.object({ version: z.string(), reason: z.string() }).strict().optional(),
  /** When the run started waiting, ISO 8601. */
  askedAt: z.string(),
  /** Set for an approval with a deadline: when it expires unless decided (after any escalation), ISO 8601. */
  expiresAt: z.string().optional(),
  /**
   * Set for an approval whose deadline escalates: when, and to whom. Once `escalated`, `decide` is this
   * rule: only these approvers may decide.
   */
  escalation: z.object({ at: z.string(), decide: AccessRuleSchema, escalated: z.boolean().optional() }).optional(),
  /**
   * What the run's stream shows of the call, where the agent's display transforms change it: the
   * arguments, and the suspend payload. The stream never carries the raw values then.
   */
  display: z.object({ args: JsonValueSchema, suspendPayload: JsonValueSchema.optional() }).optional(),
});
export type PendingToolCall = z.infer<typeof PendingToolCallSchema>;

export const DecisionKindSchema = z.enum(['approve', 'decline', 'resume', 'result', 'resolve']);
export type DecisionKind = z.infer<typeof DecisionKindSchema>;

/**
 * What a trail entry records: a decision, or what the run did itself when an approval's deadline
 * passed (`escalate`: other approvers are asked; `expire`: nobody decided in time, and the call did not run).
 */
export const TrailKindSchema = z.enum([...DecisionKindSchema.options, 'escalate', 'expire']);
export type TrailKind = z.infer<typeof TrailKindSchema>;

export const RefusalTypeSchema = z.enum(REFUSAL_TYPES);
export type { RefusalType };

/** The longest stream grace period a decision may ask for: a finished run stays open that long. */
export const MAX_STREAM_GRACE_MS = 60 * 60 * 1000;

/**
 * What an approve, decline, resume or result signal carries; docs/guides/approvals.md, "Signals and updates" documents
 * it for other clients. Every field is bounded, so that no decision can make the trail or the memo
 * outgrow a payload.
 */
export const DecisionSignalSchema = z
  .object({
    /** Chosen by the sender, so it can find the verdict in the run's decision trail. */
    decisionId: z
      .string({ error: 'required: an id of your choosing (1-256 characters), to find the verdict in the trail' })
      .min(1, 'an id of 1-256 characters')
      .max(MAX_ID, `at most ${MAX_ID} characters`),
    /** Default: the most recent pending call of the fitting kind. Qualified ids of deep calls are longer. */
    toolCallId: z.string().min(1).max(MAX_QUALIFIED_ID).optional(),
    /** When set, the call's fingerprint must equal it (an empty one matches nothing). */
    fingerprint: z.string().max(128).optional(),
    /** Who decides: the principal the server authenticated, or the identity the operator configured. */
    principal: PrincipalSchema.optional(),
    /** A free-text note for the trail (who the caller says they are, a ticket, ...); not an identity. */
    by: z.string().max(MAX_TEXT).optional(),
    /** Why (a decline's reason reaches the model). */
    reason: z.string().max(MAX_TEXT).optional(),
    resumeData: boundedJson().optional(),
    /** A client tool's result (`result` decisions), or the output of a skipped uncertain call (`resolve`). */
    result: boundedJson().optional(),
    /**
     * How an uncertain call is resolved (`resolve` decisions): `retry` runs it again, `skip` takes
     * `result` as its output (the side effect happened), `fail` makes it a tool error (with `reason`).
     */
    resolution: z.enum(['retry', 'skip', 'fail']).optional(),
    /** Approve with changed arguments: they must fit the tool's input schema, and the model is told. */
    args: boundedJson().optional(),
    /** When the sender sent it (ISO 8601, the sender's clock); the trail keeps it beside `at`, when it was applied. */
    sentAt: z.iso.datetime().optional(),
    /**
     * An approver's Ed25519 signature, required where the worker has decision keys: over the run and
     * call it was made for (`runId`, `toolCallId`), the fingerprint, the kind, the principal, `expiresAt`,
     * the decision id and a hash of the data (see `signedText`).
     */
    signature: z
      .object({
        keyId: z.string().min(1).max(128),
        runId: z.string().min(1).max(1024),
        toolCallId: z.string().min(1).max(MAX_QUALIFIED_ID),
        expiresAt: z.iso.datetime(),
        value: z.string().min(1).max(256),
      })
      .strict()
      .optional(),
    /**
     * Set when the sender streams the run from here: keep the finished run readable this long. It
     * holds for the run the signal is sent to, and is not passed down to a sub-agent.
     */
    streamGraceMs: StreamGraceMsSchema.optional(),
    /**
     * Set by a client that refused the decision itself: the workflow only records it, so that the
     * history has every decision, and never applies it.
     */
    clientRefusal: z
      .object({ type: RefusalTypeSchema, message: z.string().max(MAX_TEXT) })
      .strict()
      .optional(),
  })
  .strict();
export type DecisionSignal = z.infer<typeof DecisionSignalSchema>;

/** One decision in a run's trail, accepted or refused, with who, when and why. */
export const DecisionRecordSchema = z.object({
  decisionId: z.string(),
  kind: TrailKindSchema,
  toolCallId: z.string().nullable(),
  toolName: z.string().nullable(),
  /** Who decided (authenticated or configured), when known. */
  principal: PrincipalSchema.optional(),
  /** The free-text note that came with the decision. */
  by: z.string().nullable(),
  reason: z.string().nullable(),
  /** When the workflow applied it (workflow time). */
  at: z.string(),
  /** When the sender says it sent it, if it said. */
  sentAt: z.string().optional(),
  accepted: z.boolean(),
  refusal: z.object({ type: RefusalTypeSchema, message: z.string() }).optional(),
  /** An approval with changed arguments: what was approved, and its fingerprint (the model's call is in the step). */
  approved: z.object({ args: JsonValueSchema, fingerprint: z.string() }).optional(),
  /** An approval of a call that needs several: which one it was (`count`), of how many (`of`). */
  quorum: z.object({ count: z.number().int(), of: z.number().int() }).optional(),
  /**
   * Set by the run alone for a verdict of the agent's approval rules (their version and the rule's
   * number) or of its model judge (its version, rule -1, and `judge`: the judge's model).
   */
  ruling: z.object({ version: z.string(), rule: z.number().int(), judge: z.string().optional() }).optional(),
  /** Set by the run alone for a call a standing grant approved (the principal is the grant's creator). */
  grant: z.object({ id: z.string() }).optional(),
});
export type DecisionRecord = z.infer<typeof DecisionRecordSchema>;

/** How many refused decisions a run's memo shows: the count says how many there were in all. */
export const RECENT_REFUSALS = 5;

/**
 * What a run keeps of the decisions it refused: how many, and the last few, each clipped. Refusals are
 * kept apart from the trail of accepted decisions, under a memo key of their own, so that no sequence of
 * refused signals writes the run's memo (its waiting calls and trail) again, or grows it.
 */
export const RefusalSummarySchema = z
  .object({
    count: z.number().int().nonnegative(),
    recent: z.array(DecisionRecordSchema).max(RECENT_REFUSALS),
  })
  .strict();
export type RefusalSummary = z.infer<typeof RefusalSummarySchema>;

/** What a sub-agent's run reports to its parent whenever its waiting calls, its pause or its verdicts change. */
export const ChildReportSchema = z
  .object({
    /** The parent's tool call that started this child. */
    viaToolCallId: z.string(),
    runId: z.string(),
    agentId: z.string(),
    /** Grows with every report, so that a late, older report is ignored. */
    seq: z.number().int(),
    /** Everything the child waits on, including its own children's calls. */
    pending: z.array(PendingToolCallSchema),
    /** Whether nothing can go on in the child without a decision. */
    paused: z.boolean(),
    /** The child's verdicts since its last report; the parent keeps those on decisions it passed down. */
    verdicts: z.array(DecisionRecordSchema),
  })
  .strict();
export type ChildReport = z.infer<typeof ChildReportSchema>;
