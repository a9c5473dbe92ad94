import { z } from 'zod';
import { createTool, defineAgent, type Script } from '../src/index.js';

/**
 * Asks the user a question and waits for the answer: the tool suspends (the run waits, with no
 * worker busy), and runs again with the answer as `resumeData` once someone resumes it.
 */
export const askUserTool = createTool({
  id: 'ask-user',
  description: 'Asks the user a question and waits for the answer',
  inputSchema: z.object({ question: z.string().min(1).max(500) }),
  suspendSchema: z.object({ question: z.string() }),
  resumeSchema: z.object({ answer: z.string().min(1).max(2000) }),
  execute: async ({ question }, { suspend, resumeData }) =>
    resumeData ? { answer: resumeData.answer } : await suspend({ question }),
});

export const supportAgent = defineAgent({
  id: 'support-agent',
  name: 'Support agent',
  description: 'Helps users; asks them when it needs to know more',
  instructions: 'You help the user. When you need to know something, ask them with the askUser tool.',
  model: 'scripted',
  // The demo and the README run it on the scripted model, or on another one.
  overridable: ['model'],
  tools: { askUser: askUserTool },
});

/** A scripted conversation: ask which colour, then answer with it (the model sees the tool's result). */
export const askColourScript: Script = [
  { toolCalls: [{ toolName: 'askUser', args: { question: 'Which colour should the new theme be?' } }] },
  { text: 'Done: the new theme is in the colour you chose.' },
];
