/**
 * A call that suspends, and the data it resumes with: the suspend payload checked and sent with the
 * call's own resume schema, and resume data checked against both schemas before the tool runs again.
 */
import { errorMessage } from '../../../errors.js';
import type { ExecuteToolOutput } from '../../../protocol/activities.js';
import { oneLine, type JsonSchema, type JsonValue } from '../../../schemas/json.js';
import type { AnyTool } from '../../../tools/create-tool.js';
import { checkWith, jsonSchemaOf, schemaProblem, type ToolSchema } from '../../../tools/schema.js';
import { oversizeResult } from './tool-result.js';
import { toJson } from './transform-payload.js';

/**
 * Resume data as the tool takes it: it must fit the tool's `resumeSchema` and, where the tool has
 * `resumeSchemaFor`, this call's own schema; else it is refused and the tool does not run.
 */
export async function checkResume(
  tool: AnyTool,
  toolName: string,
  input: unknown,
  data: JsonValue,
): Promise<{ ok: true; data: unknown } | { ok: false; output: ExecuteToolOutput }> {
  const parsed = tool.resumeSchema ? await checkWith(tool.resumeSchema, data) : { ok: true as const, value: data };
  if (!parsed.ok) {
    const problem = oneLine(parsed.issues, true);
    const error = `resume data does not fit the resumeSchema of tool "${toolName}": ${problem}`;
    return { ok: false, output: { type: 'resume-rejected', error } };
  }
  const call = callResumeSchema(tool, toolName, input);
  if ('error' in call) return { ok: false, output: { type: 'error', error: call.error } };
  const fits = call.schema && (await checkWith(call.schema, data));
  if (fits && !fits.ok) {
    const error = `resume data does not fit this call of tool "${toolName}": ${oneLine(fits.issues, true)}`;
    return { ok: false, output: { type: 'resume-rejected', error } };
  }
  return { ok: true, data: parsed.value };
}

/** The resume schema of this call, where the tool makes one from the input; a function that fails is a tool error. */
function callResumeSchema(
  tool: AnyTool,
  toolName: string,
  input: unknown,
): { schema?: ToolSchema } | { error: string } {
  if (!tool.resumeSchemaFor) return {};
  try {
    const schema = (tool.resumeSchemaFor as (input: unknown) => unknown)(input);
    const problem = schemaProblem(schema, true);
    if (!problem) return { schema: schema as ToolSchema };
    return { error: `resumeSchemaFor of tool "${toolName}" returned a value that ${problem}` };
  } catch (err) {
    return { error: `resumeSchemaFor of tool "${toolName}" failed: ${errorMessage(err)}` };
  }
}

export async function suspended(
  tool: AnyTool,
  toolName: string,
  input: unknown,
  payload: unknown,
): Promise<ExecuteToolOutput> {
  if (tool.suspendSchema) {
    const parsed = await checkWith(tool.suspendSchema, payload);
    if (!parsed.ok) {
      return {
        type: 'error',
        error: `Tool "${toolName}" suspended with a payload that does not fit its suspendSchema: ${parsed.pretty}`,
      };
    }
  }
  const json: JsonValue = toJson(payload);
  const tooLarge = oversizeResult(toolName, 'a suspend payload', json);
  if (tooLarge) return tooLarge;
  // The call's own resume schema goes with the suspended call, so that every caller can check data first.
  const call = callResumeSchema(tool, toolName, input);
  if ('error' in call) return { type: 'error', error: call.error };
  if (!call.schema) return { type: 'suspended', payload: json };
  let resumeSchema: JsonSchema;
  try {
    resumeSchema = jsonSchemaOf(call.schema);
  } catch (err) {
    const error = `the resume schema of this call of tool "${toolName}" has no JSON schema: ${errorMessage(err)}`;
    return { type: 'error', error };
  }
  return (
    oversizeResult(toolName, 'a resume schema', resumeSchema) ?? { type: 'suspended', payload: json, resumeSchema }
  );
}
