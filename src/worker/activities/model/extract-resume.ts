/**
 * Auto-resume's model call: the data a waiting call needs, extracted from the user's next message with
 * structured output, then checked against the call's schema here, so the workflow only ever decides
 * with data that fits.
 */
import { ApplicationFailure } from '@temporalio/common';
import { APICallError, generateText, jsonSchema, Output, type JSONSchema7, type LanguageModel } from 'ai';
import { errorMessage } from '../../../errors.js';
import type { ModelResolver } from '../../models/registry.js';
import type { AgentRegistry } from '../../registry.js';
import { extractionInstructions, extractionSchema } from '../../../schemas/auto-resume.js';
import { oneLine, zodFromJsonSchema, type JsonValue } from '../../../schemas/json.js';
import { clip, MAX_TEXT } from '../../../schemas/limits.js';
import type { ExtractResumeDataInput, ExtractResumeDataOutput } from '../../../protocol/activities.js';

/** What the model answers: the data (or null) and what is missing. */
interface Extracted {
  resumeData: JsonValue;
  missing: string | null;
}

export async function extractResumeData(
  registry: AgentRegistry,
  models: ModelResolver,
  input: ExtractResumeDataInput,
): Promise<ExtractResumeDataOutput> {
  const agent = registry.get(input.agentId);
  const model: LanguageModel = input.model
    ? await models.resolve(input.model, { script: input.script })
    : (agent.model as LanguageModel);
  let answer: Extracted;
  try {
    const result = await generateText({
      model,
      instructions: extractionInstructions(input),
      messages: [{ role: 'user', content: input.message }],
      output: Output.object({ schema: jsonSchema<Extracted>(extractionSchema(input.schema) as JSONSchema7) }),
      maxRetries: 0, // Temporal retries the activity
    });
    answer = result.output;
  } catch (err) {
    if (APICallError.isInstance(err) && err.isRetryable) throw err;
    if (APICallError.isInstance(err)) throw ApplicationFailure.nonRetryable(err.message, 'ModelCallFailed');
    // An answer that is no object of that shape: the message gave the model nothing it could use.
    return {
      ok: false,
      missing: `the model could not read the message as ${what(input)}: ${clip(errorMessage(err), 300)}`,
    };
  }
  if (answer.resumeData === null || answer.resumeData === undefined) {
    return { ok: false, missing: clip(answer.missing?.trim() || `the message does not give ${what(input)}`, MAX_TEXT) };
  }
  const checked = zodFromJsonSchema(input.schema).safeParse(answer.resumeData);
  if (!checked.success) {
    const shown = clip(JSON.stringify(answer.resumeData), 200);
    return { ok: false, missing: `${shown} does not fit ${what(input)}: ${oneLine(checked.error.issues, true)}` };
  }
  return { ok: true, data: answer.resumeData };
}

function what(input: ExtractResumeDataInput): string {
  return input.kind === 'approval'
    ? `an approval or a decline of "${input.toolName}"`
    : `the data "${input.toolName}" asks for`;
}
