/**
 * A message sent to a run while it works (Mastra's signals, "double texting" elsewhere): queued, and
 * shown to the model as a user message at the run's next step. The request the client sends, what the
 * run answers, and its bounds; sandbox-safe.
 */
import { z } from 'zod';
import { PrincipalSchema } from './access.js';
import { MAX_ID } from './limits.js';

/** The longest message a run takes while it works, in characters (a chat message's bound). */
export const MAX_RUN_MESSAGE = 16_000;
/** How many messages may wait for a run's next step at once. */
export const MAX_QUEUED_MESSAGES = 20;
/** How many messages one run takes in all: each is in its history. */
export const MAX_RUN_MESSAGES = 500;

export const RunMessageRequestSchema = z
  .object({
    /** Chosen by the sender (the client: a random id): a message sent twice with one id is queued once. */
    messageId: z.string().min(1).max(MAX_ID),
    text: z.string().min(1).max(MAX_RUN_MESSAGE),
    /** Who sends it: checked against who may start the agent's runs, and the run's tenant. */
    principal: PrincipalSchema.optional(),
    sentAt: z.iso.datetime().optional(),
    /**
     * The sender's Ed25519 signature, required where the run takes signed decisions only (the worker has
     * decision keys): over the run, the message's id, its principal, `expiresAt` and a hash of its text
     * (see `signedMessageText`).
     */
    signature: z
      .object({
        keyId: z.string().min(1).max(128),
        runId: z.string().min(1).max(1024),
        expiresAt: z.iso.datetime(),
        value: z.string().min(1).max(256),
      })
      .strict()
      .optional(),
  })
  .strict();
export type RunMessageRequest = z.infer<typeof RunMessageRequestSchema>;

/**
 * What the run answers a message it queued: its place among those waiting for the next step (1 = first);
 * 0 for one sent again after the run continued as new, which its model was shown before.
 */
export interface RunMessageAck {
  messageId: string;
  position: number;
}

/** Why a run refuses a message. */
export type RunMessageRefusal = 'RunNotWorking' | 'NotAllowed' | 'QueueFull' | 'LastStep' | 'ConversationFull';
