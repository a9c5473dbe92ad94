/**
 * The answer rules of `ask_user` and `submit_plan`, as the worker checks them (zod) and as every other
 * caller checks them (the JSON schema stored with the waiting call, read back by `z.fromJSONSchema`):
 * both must refuse the same answers, or a caller could send what the run then refuses.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonSchemaOf } from '../../src/worker/activities/describe-agent.js';
import { createTool } from '../../src/index.js';
import { oneLine, zodFromJsonSchema } from '../../src/schemas/json.js';
import {
  answerSchema,
  AskUserInputSchema,
  AskUserResumeSchema,
  questionProblem,
  type AskUserInput,
} from '../../src/tools/builtin/ask-user.js';
import { planVerdict, SubmitPlanInputSchema, SubmitPlanResumeSchema } from '../../src/tools/builtin/submit-plan.js';

/** The verdict of the worker's schema and of the stored JSON schema on one value: undefined when it fits. */
function verdicts(schema: z.ZodType, value: unknown): { worker: string | undefined; caller: string | undefined } {
  const problem = (s: z.ZodType): string | undefined => {
    const parsed = s.safeParse(value);
    return parsed.success ? undefined : oneLine(parsed.error.issues, true);
  };
  return { worker: problem(schema), caller: problem(zodFromJsonSchema(jsonSchemaOf(schema))) };
}

const colours = ['red', 'green', 'blue'];

describe('ask_user: the question', () => {
  it('takes a question alone, with options, and with options to choose several of', () => {
    for (const input of [
      { question: 'Why?' },
      { question: 'Which?', options: colours },
      { question: 'Which?', options: colours, selectionMode: 'single' },
      { question: 'Which?', options: colours, selectionMode: 'multi_select' },
    ]) {
      expect(AskUserInputSchema.safeParse(input).success, JSON.stringify(input)).toBe(true);
    }
  });

  it.each([
    [{ question: 'Which?', selectionMode: 'multi_select' }, /multi_select" needs options/],
    [{ question: 'Which?', options: ['red', 'red'] }, /options must be distinct: "red" is given twice/],
    [{ question: 'Which?', options: [] }, /Too small/],
    [{ question: '' }, /Too small/],
    [{ question: 'Which?', selectionMode: 'any' }, /selectionMode/],
    [{ question: 'Which?', choices: colours }, /Unrecognized key: "choices"/],
  ])('refuses %j (a tool error the model sees)', (input, why) => {
    const parsed = AskUserInputSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(oneLine(parsed.error!.issues)).toMatch(why);
  });

  it('says what is wrong with a question in plain words', () => {
    expect(questionProblem({ options: ['a', 'b'], selectionMode: 'multi_select' })).toBeUndefined();
    expect(questionProblem({ options: undefined, selectionMode: 'multi_select' })).toMatch(/needs options/);
    expect(questionProblem({ options: ['a', 'b', 'a'], selectionMode: undefined })).toMatch(/"a" is given twice/);
  });
});

describe('ask_user: the answer', () => {
  const free: AskUserInput = { question: 'Why?' };
  const single: AskUserInput = { question: 'Which?', options: colours };
  const multi: AskUserInput = { question: 'Which?', options: colours, selectionMode: 'multi_select' };

  it.each([
    [free, { answer: 'Because it is late.' }],
    [single, { answer: 'green' }],
    [{ ...single, selectionMode: 'single' as const }, { answer: 'blue' }],
    [multi, { answer: ['green'] }],
    [multi, { answer: ['blue', 'red'] }],
  ])('takes, for %j, the answer %j', (input, answer) => {
    expect(verdicts(answerSchema(input), answer)).toEqual({ worker: undefined, caller: undefined });
    expect(AskUserResumeSchema.safeParse(answer).success).toBe(true);
  });

  it.each([
    ['free text: blank', free, { answer: '   ' }, /the answer is blank/, /pattern/],
    ['free text: empty', free, { answer: '' }, /the answer is blank/, /pattern/],
    ['free text: a list', free, { answer: ['a'] }, /expected string/, /expected string/],
    [
      'single: not an option',
      single,
      { answer: 'purple' },
      /"purple" is not one of the options: red, green, blue/,
      /expected one of "red"\|"green"\|"blue"/,
    ],
    ['single: a different case', single, { answer: 'Red' }, /"Red" is not one of the options/, /expected one of/],
    ['single: a list', single, { answer: ['red'] }, /\["red"\] is not one of the options/, /expected one of/],
    [
      'multi: one option, not a list',
      multi,
      { answer: 'red' },
      /a multi_select answer is a list of options/,
      /expected array/,
    ],
    ['multi: an empty list', multi, { answer: [] }, /choose at least one option/, />=1 items/],
    ['multi: an option twice', multi, { answer: ['red', 'blue', 'red'] }, /"red" is chosen twice/, /must be unique/],
    [
      'multi: not an option',
      multi,
      { answer: ['red', 'purple'] },
      /answer\.1: "purple" is not one of the options/,
      /answer\.1: Invalid option/,
    ],
    [
      'any: another field',
      single,
      { answer: 'red', note: 'x' },
      /Unrecognized key: "note"/,
      /Unrecognized key: "note"/,
    ],
    ['any: no answer', single, {}, /no answer; the options: red, green, blue/, /expected one of/],
  ])('refuses %s, at the worker and at every caller', (_, input, answer, worker, caller) => {
    const { worker: w, caller: c } = verdicts(answerSchema(input), answer);
    expect(w).toMatch(worker);
    expect(c).toMatch(caller);
  });
});

describe('submit_plan', () => {
  it('takes a plan, and a plan with the path of its file', () => {
    expect(SubmitPlanInputSchema.safeParse({ plan: '1. Do it.' }).success).toBe(true);
    expect(SubmitPlanInputSchema.safeParse({ plan: '1. Do it.', path: 'PLAN.md' }).success).toBe(true);
    expect(SubmitPlanInputSchema.safeParse({ plan: '' }).success).toBe(false);
    expect(SubmitPlanInputSchema.safeParse({ path: 'PLAN.md' }).success).toBe(false);
  });

  it.each([
    [{ action: 'approved' }, { approved: true }],
    [
      { action: 'approved', feedback: 'Mind the backups.' },
      { approved: true, feedback: 'Mind the backups.' },
    ],
    [
      { action: 'rejected', feedback: 'Step 2 first.' },
      { approved: false, feedback: 'Step 2 first.' },
    ],
  ])('takes the review %j, and the model gets %j', (review, verdict) => {
    expect(verdicts(SubmitPlanResumeSchema, review)).toEqual({ worker: undefined, caller: undefined });
    expect(planVerdict(SubmitPlanResumeSchema.parse(review))).toEqual(verdict);
  });

  it.each([
    ['a rejection without feedback', { action: 'rejected' }, /feedback: .*expected string/],
    ['a rejection with blank feedback', { action: 'rejected', feedback: ' \n ' }, /the feedback is blank|pattern/],
    ['another action', { action: 'maybe' }, /approved.*rejected/],
    ['no action', { feedback: 'hm' }, /approved.*rejected/],
    ['not an object', 'yes', /object|approved/],
    ['another field', { action: 'approved', by: 'me' }, /Unrecognized key: "by"/],
  ])('refuses %s, at the worker and at every caller', (_, review, why) => {
    const { worker, caller } = verdicts(SubmitPlanResumeSchema, review);
    expect(worker).toMatch(why);
    expect(caller).toMatch(why);
  });
});

describe('oneLine with alternatives', () => {
  it('says what each alternative of a union missed, once each, instead of "Invalid input"', () => {
    const schema = z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]);
    const issues = schema.safeParse({}).error!.issues;
    expect(oneLine(issues)).toBe('Invalid input');
    expect(oneLine(issues, true)).toBe(
      'Invalid input (fits no alternative: [a: Invalid input: expected string, received undefined] or ' +
        '[b: Invalid input: expected number, received undefined])',
    );
    const same = z.union([z.object({ a: z.string() }), z.object({ a: z.string(), b: z.string().optional() })]);
    expect(oneLine(same.safeParse(1).error!.issues, true)).toBe(
      'Invalid input (fits no alternative: [Invalid input: expected object, received number])',
    );
  });
});

describe('resumeSchemaFor', () => {
  const base = { id: 't', description: 'd', inputSchema: z.object({}) };
  it('is refused on a client tool, which never suspends, and when it is not a function', () => {
    expect(() => createTool({ ...base, resumeSchemaFor: () => z.string() })).toThrow(
      /resumeSchemaFor` needs `execute`/,
    );
    expect(() =>
      createTool({ ...base, execute: () => null, resumeSchemaFor: z.string() as unknown as () => z.ZodType }),
    ).toThrow(/must be a function of the input/);
  });
});
