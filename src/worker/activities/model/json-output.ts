/**
 * How a step of a run with an output schema asks the model for JSON: the AI SDK's `Output.object`, whose
 * response format each provider turns into its own JSON mode (OpenAI's `json_schema`, Gemini's
 * `responseJsonSchema`, Anthropic's output format or JSON tool).
 */
import { jsonSchema, Output, type JSONSchema7, type OutputInterface } from 'ai';
import type { StructuredOutputSpec } from '../../../schemas/structured-output.js';

/**
 * `Output.object` without its final parse: the AI SDK's own throws on an answer that does not fit, which
 * would fail the activity and retry the model call. The run checks the answer itself (`checkObject`),
 * and a model that cannot produce the object ends the run with the reason instead. Its partial parse
 * stays: a streamed step sends its text as each partial object grows.
 */
export function jsonOutput(spec: StructuredOutputSpec): OutputInterface<string, unknown, never> {
  const object = Output.object({
    schema: jsonSchema(spec.schema as JSONSchema7),
    ...(spec.name !== undefined ? { name: spec.name } : {}),
    ...(spec.description !== undefined ? { description: spec.description } : {}),
  });
  return {
    name: object.name,
    responseFormat: object.responseFormat,
    parseCompleteOutput: ({ text }) => Promise.resolve(text),
    parsePartialOutput: (options) => object.parsePartialOutput(options),
    createElementStreamTransform: () => undefined,
  };
}
