/** The built-in `submit_plan` tool: the run waits until a person approves or rejects the model's plan. */
import { z } from 'zod';
import { createTool } from '../create-tool.js';
import { builtinTool } from './builtin-names.js';

/** How long a plan, its path and a reviewer's feedback may be. */
export const SUBMIT_PLAN_LIMITS = { maxPlanChars: 100_000, maxPathChars: 1000, maxFeedbackChars: 10_000 } as const;

export const SubmitPlanInputSchema = z.strictObject({
  plan: z.string().min(1).max(SUBMIT_PLAN_LIMITS.maxPlanChars).describe('The plan, as the reviewer reads it'),
  path: z
    .string()
    .min(1)
    .max(SUBMIT_PLAN_LIMITS.maxPathChars)
    .optional()
    .describe('Where the plan is written, when it is a file'),
});

/** What the run shows while it waits: the plan, and its path when it is a file. */
export const SubmitPlanSuspendSchema = z.object({ plan: z.string(), path: z.string().optional() });

// A pattern rather than trim(): it survives the trip to JSON schema, so callers refuse blank feedback too.
const feedback = z.string().max(SUBMIT_PLAN_LIMITS.maxFeedbackChars).regex(/\S/, 'the feedback is blank');

/**
 * The review: `{ action: 'approved', feedback? }` or `{ action: 'rejected', feedback }`. A rejection
 * says why, since the model revises the plan from what it is told.
 */
export const SubmitPlanResumeSchema = z.discriminatedUnion(
  'action',
  [
    z.strictObject({ action: z.literal('approved'), feedback: feedback.optional() }),
    z.strictObject({ action: z.literal('rejected'), feedback }),
  ],
  { error: 'the review is { "action": "approved" } or { "action": "rejected", "feedback": "why" }' },
);
export type PlanReview = z.output<typeof SubmitPlanResumeSchema>;

/** What the model gets: whether the plan was approved, and the reviewer's feedback when there is some. */
export const SubmitPlanOutputSchema = z.object({ approved: z.boolean(), feedback: z.string().optional() });
export type PlanVerdict = z.output<typeof SubmitPlanOutputSchema>;

/** The tool's result for a review: the feedback goes to the model, so that it can revise a rejected plan. */
export function planVerdict(review: PlanReview): PlanVerdict {
  const approved = review.action === 'approved';
  return review.feedback === undefined ? { approved } : { approved, feedback: review.feedback };
}

/**
 * `submit_plan`: submits a plan (`{ plan, path? }`, `path` when the plan is a file) for review and waits.
 * The run suspends with `{ plan, path? }` and resumes with `{ action: 'approved', feedback? }` or
 * `{ action: 'rejected', feedback }`; anything else is refused with `InvalidResumeDataError` and the call
 * keeps waiting. The model gets `{ approved: true }` or `{ approved: false, feedback }`.
 */
export const submitPlanTool = builtinTool(
  createTool({
    id: 'submit_plan',
    description:
      'Submits a plan to the user for review and waits until it is approved or rejected. On a rejection, ' +
      'revise the plan from the feedback and submit it again.',
    inputSchema: SubmitPlanInputSchema,
    suspendSchema: SubmitPlanSuspendSchema,
    resumeSchema: SubmitPlanResumeSchema,
    outputSchema: SubmitPlanOutputSchema,
    // Submitting has no side effect, so a call cut off by a dying worker may simply run again.
    idempotent: true,
    execute: async ({ plan, path }, { suspend, resumeData }) =>
      resumeData ? planVerdict(resumeData) : await suspend({ plan, ...(path !== undefined ? { path } : {}) }),
  }),
);
