import { z } from 'zod';
import {
  askUserTool,
  createTool,
  defineAgent,
  submitPlanTool,
  taskCheckTool,
  taskCompleteTool,
  taskUpdateTool,
  taskWriteTool,
  webFetchTool,
  type Script,
} from '../src/index.js';

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
  description:
    'Helps users: asks them when it needs to know more, reads the pages they link, ' +
    'has its plans reviewed, tracks its tasks',
  instructions:
    'You help the user. Read the pages they link to with web_fetch. ' +
    'When you need to know something, ask them with ask_user (give options when ' +
    'there is a fixed set of answers). Before a change, submit your plan with submit_plan; if it is ' +
    'rejected, revise it from the feedback and submit it again. Track work of several steps with the ' +
    'task tools (task_write, task_update, task_complete), and check with task_check before you finish.',
  model: 'scripted',
  // The demo and the README run it on the scripted model, or on another one.
  overridable: ['model'],
  // Built-ins keep their ids as names whatever the key: the model calls task_write, not taskWriteTool.
  tools: {
    askUser: askTool,
    ask_user: askUserTool,
    submit_plan: submitPlanTool,
    taskWriteTool,
    taskUpdateTool,
    taskCompleteTool,
    taskCheckTool,
    web_fetch: webFetchTool,
  },
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

/**
 * A first turn on a thread that plans with the task tools: the list (one task in progress), then the
 * first task completed and the next one started. The list stays on the thread for the next turn.
 */
export const planTasksScript: Script = [
  {
    toolCalls: [
      {
        toolName: 'task_write',
        args: {
          tasks: [
            { id: 'backup', content: 'Back up the theme', status: 'in_progress', activeForm: 'Backing up the theme' },
            { id: 'switch', content: 'Switch the theme to green', status: 'pending' },
            { id: 'check', content: 'Check every page', status: 'pending' },
          ],
        },
      },
    ],
  },
  { toolCalls: [{ toolName: 'task_complete', args: { id: 'backup' } }] },
  { toolCalls: [{ toolName: 'task_update', args: { id: 'switch', status: 'in_progress' } }] },
  { text: 'The theme is backed up; switching it now.' },
];

/** A later turn: how far the list is (the model was shown it as the turn began). */
export const checkTasksScript: Script = [
  { toolCalls: [{ toolName: 'task_check', args: {} }] },
  { text: 'One of three tasks is done.' },
];
