// A user's agent, as an application that installed durable-agents from npm defines it.
import { z } from 'zod';
import { createTool, defineAgent, type Script } from 'durable-agents';

export const greetTool = createTool({
  id: 'greet',
  description: 'Greets someone by name',
  inputSchema: z.object({ name: z.string() }),
  execute: async ({ name }) => ({ greeting: `Hello, ${name}!` }),
});

export const greeter = defineAgent({
  id: 'greeter',
  name: 'Greeter',
  instructions: 'Greet people with the greet tool.',
  model: 'scripted',
  tools: { greet: greetTool },
});

/** What the offline scripted model answers: a greet call, then the final text. */
export const greetScript: Script = [
  { toolCalls: [{ toolName: 'greet', args: { name: 'Ada' } }] },
  { text: 'I said hello to Ada.' },
];

/** An agent whose tool waits for a person, run from a team's own workflow (team-workflows.ts). */
export const gatekeeper = defineAgent({
  id: 'gatekeeper',
  name: 'Gatekeeper',
  instructions: 'Greet people, once someone approves.',
  model: 'scripted',
  tools: {
    greet: createTool({ ...greetTool, id: 'guarded-greet', requireApproval: true }),
  },
});
