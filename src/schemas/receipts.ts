/**
 * Receipts: a run's hash-chained record of its decisions, as `agentctl audit export` writes them (one
 * JSON object a line) and `agentctl audit verify` reads them back. Sandbox-safe.
 */
import { z } from 'zod';
import { AccessRuleSchema } from './access.js';
import { TrailKindSchema } from './decisions.js';

const Hash = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in hex (64 characters)');

/**
 * One decision of a run (or what the run did itself: an escalation, an expiry), chained to the one
 * before by `prev`, and hashed: `hash` is the SHA-256 of the canonical JSON of every other field. Every
 * field is always there (null when it does not apply), so that the text hashed is the same everywhere.
 */
export const ReceiptSchema = z
  .object({
    v: z.literal(1),
    /** The run (a sub-agent's run has receipts of its own). */
    runId: z.string().min(1),
    /** 0 for the run's first decision; a run that continued as new goes on counting. */
    seq: z.number().int().nonnegative(),
    /** The hash of the receipt before (`seq - 1`); null for the first. */
    prev: Hash.nullable(),
    decisionId: z.string(),
    kind: TrailKindSchema,
    toolCallId: z.string().nullable(),
    toolName: z.string().nullable(),
    /** The fingerprint of the call decided (run, call, tool, arguments), when the run knew it. */
    fingerprint: Hash.nullable(),
    /** For an approval with changed arguments: the fingerprint of what was approved. */
    approvedFingerprint: Hash.nullable(),
    /**
     * SHA-256 of what the decision carried (`{args, reason, result, resumeData}`, canonical JSON, null for
     * each it did not carry): the receipt is bound to the data without holding it.
     */
    data: Hash.nullable(),
    /** How an uncertain call was resolved (`resolve` decisions). */
    resolution: z.enum(['retry', 'skip', 'fail']).nullable(),
    /** The rule the decider was held to (the tool's `decide`, or its escalation's); null: the run's readers. */
    rule: AccessRuleSchema.nullable(),
    /**
     * For a verdict of the agent's approval rules (no person decided): their version and the rule's
     * number; of its model judge: its version, rule -1, and the judge's model.
     */
    ruling: z.object({ version: z.string(), rule: z.number().int(), judge: z.string().optional() }).strict().nullable(),
    /** Who decided, as the run knew them (authenticated or configured); null for what the run did itself. */
    principal: z
      .object({
        id: z.string(),
        name: z.string().optional(),
        tenant: z.string().optional(),
        via: z.string().optional(),
      })
      .strict()
      .nullable(),
    by: z.string().nullable(),
    reason: z.string().nullable(),
    /** When the run took it (workflow time, ISO 8601). */
    at: z.string(),
    /** When the sender says it sent it. */
    sentAt: z.string().nullable(),
    /** The approver's signature, where the worker takes signed decisions only: what it signed, and the value. */
    signature: z
      .object({
        keyId: z.string(),
        runId: z.string(),
        toolCallId: z.string(),
        fingerprint: z.string().nullable(),
        expiresAt: z.string(),
        value: z.string(),
      })
      .strict()
      .nullable(),
    hash: Hash,
  })
  .strict();
export type Receipt = z.infer<typeof ReceiptSchema>;

/** Where a run's chain stands: the next receipt's `seq`, and the last one's hash (null before the first). */
export const ReceiptHeadSchema = z.object({ next: z.number().int().nonnegative(), hash: Hash.nullable() }).strict();
export type ReceiptHead = z.infer<typeof ReceiptHeadSchema>;

/** What the `receipts` query answers: this execution's receipts, and the chain's head before and after them. */
export interface ExecutionReceipts {
  /** The head that the run carried in from the execution before it (`{ next: 0, hash: null }` for the first). */
  from: ReceiptHead;
  receipts: Receipt[];
}
