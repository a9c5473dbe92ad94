/** Conversation messages. Sandbox-safe. */
import { z } from 'zod';

/**
 * A conversation message, in the AI SDK's `ModelMessage` shape. Checked loosely here (role and
 * content) because the workflow only stores and forwards messages; the AI SDK checks them fully
 * when the model activity sends them.
 */
export const MessageSchema = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]),
  })
  .loose();
export type Message = z.infer<typeof MessageSchema>;
