/**
 * The shapes of a run's stream that runs carry across continue-as-new, and those of the streams library
 * that runs from before took (src/workflows/stream/chunk-log.ts and legacy-stream.ts read them). Here,
 * with the other schemas, so that every run shares one instance of them.
 */
import { z } from 'zod';

/** The log as a continued run carries it. */
export const CarriedLogSchema = z.object({ base: z.number().int().nonnegative(), chunks: z.array(z.unknown()) });

/** The log as runs from before carried it: @temporalio/workflow-streams' state, each chunk an encoded payload. */
export const LegacyCarriedLogSchema = z.object({
  base_offset: z.number().int().nonnegative(),
  log: z.array(z.object({ data: z.string() })),
});

/** The library's long-poll, as runs from before accepted it. */
export const LegacyPollSchema = z.object({ topics: z.array(z.string()), from_offset: z.number().int().nonnegative() });

/** The library's publish signal, as runs from before took it. */
export const LegacyPublishSchema = z.object({
  items: z.array(z.object({ topic: z.string(), data: z.string() })),
  publisher_id: z.string(),
  sequence: z.number(),
});
