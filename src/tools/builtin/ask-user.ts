/** The built-in `ask_user` tool: the run waits for a person's answer to a question, free text or a choice. */
import { z } from 'zod';
import { createTool } from '../create-tool.js';
import { builtinTool } from './builtin-names.js';

/** How many options a question may offer, and how long each may be. */
export const ASK_USER_LIMITS = { maxQuestionChars: 4000, maxOptions: 50, maxOptionChars: 500 } as const;

export const AskUserInputSchema = z
  .object({
    question: z.string().min(1).max(ASK_USER_LIMITS.maxQuestionChars).describe('The question, as the user reads it'),
    options: z
      .array(z.string().min(1).max(ASK_USER_LIMITS.maxOptionChars))
      .min(1)
      .max(ASK_USER_LIMITS.maxOptions)
      .optional()
      .describe('The choices the user picks from; leave out for a free-text answer'),
    selectionMode: z
      .enum(['single', 'multi_select'])
      .optional()
      .describe('single (default): one option; multi_select: one or more options'),
  })
  .strict()
  .superRefine((input, ctx) => {
    const problem = questionProblem(input);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
export type AskUserInput = z.output<typeof AskUserInputSchema>;

/** What the run shows while it waits: the question, and the options with how many may be chosen. */
export const AskUserSuspendSchema = z.object({
  question: z.string(),
  options: z.array(z.string()).optional(),
  selectionMode: z.enum(['single', 'multi_select']).optional(),
});
export type AskUserSuspendPayload = z.output<typeof AskUserSuspendSchema>;

/**
 * The answer, in any form a question can take: free text or one option (a string), or several options
 * (a list). Which form, and which values, this call takes is {@link answerSchema} of its input.
 */
export const AskUserResumeSchema = z.strictObject({
  answer: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
});
export type AskUserAnswer = z.output<typeof AskUserResumeSchema>;

export const AskUserOutputSchema = z.object({ answer: z.union([z.string(), z.array(z.string())]) });

/** Why the model's question cannot be asked (a tool error it sees), or undefined. */
export function questionProblem(input: Pick<AskUserInput, 'options' | 'selectionMode'>): string | undefined {
  const { options, selectionMode } = input;
  if (selectionMode === 'multi_select' && !options) return 'selectionMode "multi_select" needs options to choose from';
  const repeated = options && firstRepeated(options);
  // With an option twice, an answer could not say which one was meant.
  if (repeated !== undefined) return `options must be distinct: ${JSON.stringify(repeated)} is given twice`;
  return undefined;
}

/**
 * The answers this question takes: without options, any non-empty text; with options, one of them
 * (`single`), or a non-empty list of them without repeats (`multi_select`). Its JSON schema is stored
 * with the waiting call, so callers check an answer before they send it; the worker checks it again.
 */
export function answerSchema(input: Pick<AskUserInput, 'options' | 'selectionMode'>): z.ZodType {
  const { options, selectionMode } = input;
  // A pattern rather than trim(): it survives the trip to JSON schema, so callers refuse a blank answer too.
  if (!options?.length) return z.strictObject({ answer: z.string().regex(/\S/, 'the answer is blank') });
  const option = z.enum(options as [string, ...string[]], {
    error: (issue) =>
      issue.input === undefined
        ? `no answer; the options: ${options.join(', ')}`
        : `${JSON.stringify(issue.input)} is not one of the options: ${options.join(', ')}`,
  });
  if (selectionMode !== 'multi_select') return z.strictObject({ answer: option });
  const choices = z
    .array(option, { error: 'a multi_select answer is a list of options' })
    .min(1, 'choose at least one option')
    .refine((chosen) => firstRepeated(chosen) === undefined, {
      error: (issue) => `${JSON.stringify(firstRepeated(issue.input as string[]))} is chosen twice`,
    })
    // The refinement does not reach JSON schema; uniqueItems says the same to callers that check there.
    .meta({ uniqueItems: true });
  return z.strictObject({ answer: choices });
}

function firstRepeated(values: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v)) return v;
    seen.add(v);
  }
  return undefined;
}

/**
 * `ask_user`: asks the user a question and waits for the answer. The run suspends with
 * `{ question, options?, selectionMode? }` (`selectionMode` is `single`, the default, or `multi_select`)
 * and resumes with `{ answer }`: free text without options; one of the options (`single`); a non-empty
 * list of options without repeats (`multi_select`). Another answer is refused with
 * `InvalidResumeDataError` and the call keeps waiting. The model gets `{ answer }`.
 */
export const askUserTool = builtinTool(
  createTool({
    id: 'ask_user',
    description:
      'Asks the user a question and waits for the answer. Give options for a choice (selectionMode ' +
      '"multi_select" to allow several), or none for a free-text answer.',
    inputSchema: AskUserInputSchema,
    suspendSchema: AskUserSuspendSchema,
    resumeSchema: AskUserResumeSchema,
    resumeSchemaFor: answerSchema,
    outputSchema: AskUserOutputSchema,
    // Asking has no side effect, so a call cut off by a dying worker may simply run again.
    idempotent: true,
    execute: async ({ question, options, selectionMode }, { suspend, resumeData }) => {
      // The worker let only an answer that fits this question through (resumeSchemaFor).
      if (resumeData) return { answer: resumeData.answer };
      return await suspend({
        question,
        ...(options ? { options, selectionMode: selectionMode ?? 'single' } : {}),
      });
    },
  }),
);
