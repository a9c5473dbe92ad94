import { z } from 'zod';
import { askUserTool, createTool, defineAgent, submitPlanTool, type Script } from '../src/index.js';

/**
 * Asks the user a question and waits for the answer, written out by hand: the tool suspends (the run
 * waits, with no worker busy), and runs again with the answer as `resumeData` once someone resumes it.
 * The built-in `ask_user` does the same, with options to choose from.
 */
export const askTool = createTool({
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
  description: 'Helps users; asks them when it needs to know more, and has its plans reviewed',
  instructions:
    'You help the user. When you need to know something, ask them with ask_user (give options when ' +
    'there is a fixed set of answers). Before a change, submit your plan with submit_plan; if it is ' +
    'rejected, revise it from the feedback and submit it again.',
  model: 'scripted',
  // The demo and the README run it on the scripted model, or on another one.
  overridable: ['model'],
  tools: { askUser: askTool, ask_user: askUserTool, submit_plan: submitPlanTool },
});

/** A scripted conversation: ask which colour, then answer with it (the model sees the tool's result). */
export const askColourScript: Script = [
  { toolCalls: [{ toolName: 'askUser', args: { question: 'Which colour should the new theme be?' } }] },
  { text: 'Done: the new theme is in the colour you chose.' },
];

/** The same with the built-in `ask_user`: a choice among options. */
export const chooseColourScript: Script = [
  {
    toolCalls: [
      { toolName: 'ask_user', args: { question: 'Which colour should the new theme be?', options: ['red', 'green'] } },
    ],
  },
  { text: 'Done: the new theme is in the colour you chose.' },
];

/** A plan for review with `submit_plan`, then the answer (the model sees the verdict and any feedback). */
export const planScript: Script = [
  { toolCalls: [{ toolName: 'submit_plan', args: { plan: '1. Back up the theme.\n2. Switch it to green.' } }] },
  { text: 'The plan is through review.' },
];
