/**
 * System 2, the engine floor: exactly the activities of an agent run (a model call and a tool call a step),
 * nothing else.
 */
import { proxyActivities } from '@temporalio/workflow';
import type * as activities from '../activities.js';

const { benchModel, benchTool } = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });

export async function engineFloor(steps: number): Promise<string> {
  for (let i = 0; i < steps; i++) {
    await benchModel(i);
    await benchTool(i);
  }
  return (await benchModel(steps)).text;
}
