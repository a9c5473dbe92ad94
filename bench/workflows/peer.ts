/** System 3, the nearest peer: @temporalio/ai-sdk, the AI SDK's own loop in a workflow, model calls as activities. */
import { temporalProvider } from '@temporalio/ai-sdk/workflow';
import { proxyActivities } from '@temporalio/workflow';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import type * as activities from '../activities.js';

const { benchTool } = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });

export async function aiSdkPeer(steps: number): Promise<string> {
  const result = await generateText({
    model: temporalProvider.languageModel(`bench-${steps}`),
    prompt: 'go',
    tools: {
      noop: tool({
        description: 'Does nothing',
        inputSchema: jsonSchema<{ i: number }>({
          type: 'object',
          properties: { i: { type: 'number' } },
          required: ['i'],
        }),
        execute: async ({ i }) => benchTool(i),
      }),
    },
    stopWhen: stepCountIs(steps + 1),
  });
  return result.text;
}
