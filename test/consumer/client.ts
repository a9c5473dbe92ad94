// The user's application: starts a run, waits for its result, prints what the test checks.
import { AgentClient } from 'durable-agents/client';
import { greetScript } from './agent.ts';

const client = await AgentClient.connect();
const { runId } = await client.start('greeter', 'Say hello to Ada.', { script: greetScript });
const result = await client.result(runId);
console.log(JSON.stringify({ runId, finishReason: result.finishReason, text: result.text }));
await client.close();
