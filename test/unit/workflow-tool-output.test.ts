import { describe, expect, it } from 'vitest';
import type { ToolSpecOf } from '../../src/schemas/agent-spec.js';
import { workflowOutputProblem } from '../../src/workflows/run/workflow-tool-run.js';

const tool = (outputSchema?: Record<string, unknown>) =>
  ({
    name: 'workflow-research',
    id: 'research',
    kind: 'workflow',
    description: 'd',
    inputSchema: { type: 'object' },
    ...(outputSchema ? { outputSchema } : {}),
    workflow: { type: 'research' },
    requireApproval: false,
  }) as ToolSpecOf<'workflow'>;

describe("a workflow tool's output", () => {
  it('is passed on when it fits the output schema, or the tool has none', () => {
    expect(
      workflowOutputProblem(tool({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }), {
        ok: true,
      }),
    ).toBeUndefined();
    expect(workflowOutputProblem(tool(), 'anything')).toBeUndefined();
  });

  it('is a tool error when it does not fit', () => {
    expect(
      workflowOutputProblem(tool({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }), {}),
    ).toMatch(/^Workflow "research" returned output that does not fit its output schema: ok:/);
  });

  it('is a tool error, not unchecked, when zod cannot rebuild the schema', () => {
    const schema = { type: 'object', if: { required: ['a'] }, then: { required: ['b'] } };
    expect(workflowOutputProblem(tool(schema), { a: 1 })).toMatch(
      /^Workflow "research"'s output schema cannot be checked in the run \(Conditional schemas/,
    );
  });
});
