/**
 * `npm run record-corpus [-- NAME...]`: records the replay corpus of the package's current version
 * (package.json) into test/histories/<version>/ (all of it, or the named histories), which
 * test/integration/replay.test.ts replays with the corpora of every earlier release. Run it for each
 * release (see docs/upgrading.md); never re-record an earlier release's corpus: the point of the kept
 * histories is that today's workflow code must replay the runs every release left in flight.
 * Runs against TEMPORAL_ADDRESS (default: the dev server, `npm run dev-server`).
 *
 * `streamed-before-guard.json` is not recorded here: it was recorded by the version before the guarded
 * stream (commit bcc09e5) and holds what that version did, which no later one does: reads by the
 * long-poll update of @temporalio/workflow-streams, publishes through its signal, and a cancel request
 * in the grace period that the run slept out. It is a run like `streamed-guarded`, recorded then.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { deleteRecordScript, recordsAgent } from '../../examples/records-agent.js';
import { weatherAgent, weatherDemoScript } from '../../examples/weather-agent.js';
import { createWorker } from '../../src/worker/index.js';
import { AgentClient, type StartOptions } from '../../src/client/index.js';
import { createTracing } from '../../src/tracing/index.js';
import { publishChunksSignal, resumeToolCallSignal } from '../../src/protocol/run-messages.js';
import { threadWorkflowId } from '../../src/schemas/thread.js';
import { supervisorAgent, supervisorDeleteOptions } from '../../examples/supervisor-agent.js';
import { autoResumeAgent } from '../fixtures/mastra-pages.js';
import { sharingSupervisor } from '../fixtures/supervisors.js';
import { planTasksScript, supportAgent } from '../../examples/support-agent.js';
import { hookedAgent, memoryAgent, toolboxAgent } from '../fixtures/agents.js';
import { transformAgent } from '../fixtures/transform-agents.js';
import { webSearchAgent } from '../fixtures/web-search-agent.js';
import { mcpNotesAgent } from '../fixtures/mcp/servers.js';
import { refundCall, refundFlowAgent } from '../fixtures/workflow-tool-agent.js';
import {
  approvalsBank,
  BANK_RESOURCE,
  bankPeople,
  bankScript,
  judgeAnswer,
  judgedBank,
} from '../fixtures/approvals-bank.js';
import { startFakeOpenAI } from '../openai-server.js';
import { grantBookId } from '../../src/schemas/grants.js';

Runtime.install({ logger: new DefaultLogger('WARN') });
process.env.RECORDS_FILE = join(tmpdir(), `records-${randomUUID()}.json`);

interface Recording {
  agentId: string;
  prompt: string;
  options: StartOptions;
  /** Start it with `stream()`, which keeps it open this long after it finishes. */
  streamGraceMs?: number;
  /** Start it from a client that traces: the run's history then carries trace contexts. */
  traced?: boolean;
  /** What happens after the run first pauses or finishes. */
  then?: (client: AgentClient, runId: string) => Promise<unknown>;
  /** What happens before the run starts (an earlier run on its thread). */
  before?: (client: AgentClient) => Promise<unknown>;
  /** Also record the history of this workflow (the run's thread), as `<name>-thread.json`. */
  alsoRecord?: string;
  /** What the other workflow's history is named after (default `thread`): `<name>-<as>.json`. */
  alsoRecordAs?: string;
  /** Also record the history of the sub-agent run of this delegating call, as `<name>-child.json`. */
  alsoRecordChild?: string;
  /** The run continues as new: also record the first run of its chain, as `<name>-first.json`. */
  alsoRecordFirst?: boolean;
}

/** Where the plain workflows that agents call as tools run (test/fixtures/workflows.ts). */
const workflowQueue = `record-workflows-${randomUUID()}`;

/** The thread of the standing-grant recording: a fresh one each time, in the bank's resource. */
const grantThread = { threadId: `history-grant-${randomUUID()}`, resourceId: BANK_RESOURCE };
const { tina, ann, sam } = bankPeople;
/** Who started a bank run: Tina, a teller (approvers may not approve their own runs' calls). */
const bankRun = (script: ReturnType<typeof bankScript>) => ({
  model: 'scripted',
  script,
  resourceId: BANK_RESOURCE,
  principal: tina,
});

/** The thread of the auto-resume recording: a fresh one each time. */
const autoThread = { threadId: `history-auto-${randomUUID()}`, resourceId: 'history-resource' };

/** A fresh thread each time it is recorded: the recording shows one earlier turn. */
const sharedThread = { threadId: `history-shared-${randomUUID()}`, resourceId: 'history-resource' };

const recordings: Record<string, Recording> = {
  // The lean history: the description as a local activity, memo and search attributes written once a
  // workflow task, a slim nextPause answer, one script step a model call; an approval, then the run
  // continues as new carrying its open stream segment only.
  'lean-continued': {
    agentId: 'toolbox-agent',
    prompt: 'go',
    options: {
      model: 'scripted',
      continueAsNewEvery: 2,
      script: [
        { toolCalls: [{ toolName: 'add', args: { a: 1, b: 1 } }] },
        { toolCalls: [{ toolName: 'guarded', args: { target: 'x' } }] },
        { toolCalls: [{ toolName: 'add', args: { a: 3, b: 1 } }] },
        { text: 'done' },
      ],
    },
    then: (client, runId) => client.approveToolCallGenerate({ runId, by: 'ops' }),
    alsoRecordFirst: true,
  },
  // The conversation by reference (conversation-by-reference patch): each model call carries the
  // messages after what the previous one held with its answer; an approval, then the run continues as
  // new and its first call references what the last call of the first run held (both runs).
  'conversation-by-reference': {
    agentId: 'toolbox-agent',
    prompt: 'go',
    options: {
      model: 'scripted',
      continueAsNewEvery: 3,
      script: [
        { toolCalls: [{ toolName: 'add', args: { a: 1, b: 1 } }] },
        { toolCalls: [{ toolName: 'guarded', args: { target: 'x' } }] },
        { toolCalls: [{ toolName: 'add', args: { a: 2, b: 1 } }] },
        { toolCalls: [{ toolName: 'add', args: { a: 3, b: 1 } }] },
        { text: 'done' },
      ],
    },
    then: (client, runId) => client.approveToolCallGenerate({ runId, by: 'ops' }),
    alsoRecordFirst: true,
  },
  // A run on a thread suspends; the next messages on the thread go to it as autoResume updates: one
  // without the data (refused, still waiting), then one the model reads the data from (resumed).
  'auto-resume': {
    agentId: 'my-agent-auto',
    prompt: "What's the weather like?",
    options: {
      model: 'scripted',
      ...autoThread,
      script: [{ toolCalls: [{ toolName: 'weatherTool', args: { city: '' } }] }, { text: 'Sunny in Paris.' }],
    },
    then: async (client) => {
      const answer = (resumeData: unknown, missing: string | null) => ({
        ...autoThread,
        model: 'scripted',
        script: [{ text: JSON.stringify({ resumeData, missing }) }],
      });
      await client.generate('my-agent-auto', 'somewhere nice', answer(null, 'Which city?')).catch(() => undefined);
      await client.generate('my-agent-auto', 'Paris', answer({ city: 'Paris' }, null));
    },
  },
  'weather-agent': {
    agentId: 'weather-agent',
    prompt: 'What is the weather in Paris?',
    options: { model: 'scripted', script: weatherDemoScript },
  },
  'invalid-tool-args': {
    agentId: 'weather-agent',
    prompt: 'Weather?',
    options: {
      model: 'scripted',
      script: [
        {
          toolCalls: [
            { toolName: 'weather', args: { town: 'Paris' } },
            { toolName: 'radar', args: {} },
          ],
        },
        { text: 'Sorry.' },
      ],
    },
  },
  'script-exhausted': {
    agentId: 'weather-agent',
    prompt: 'Weather?',
    options: { model: 'scripted', script: [{ toolCalls: [{ toolName: 'weather', args: { city: 'Oslo' } }] }] },
  },
  'approve-with-refusal': {
    agentId: 'records-agent',
    prompt: 'Delete the old customer list.',
    options: { model: 'scripted', script: deleteRecordScript },
    then: async (client, runId) => {
      await client.approveToolCallGenerate({ runId, fingerprint: 'stale', by: 'intern' }).catch(() => undefined);
      await client.approveToolCallGenerate({ runId, by: 'ops' });
    },
  },
  'decline-in-parallel': {
    agentId: 'toolbox-agent',
    prompt: 'Both.',
    options: {
      model: 'scripted',
      script: [
        {
          toolCalls: [
            { toolName: 'guarded', args: { target: 'a' } },
            { toolName: 'guarded', args: { target: 'b' } },
          ],
        },
        { text: 'done' },
      ],
    },
    then: async (client, runId) => {
      await client.approveToolCallGenerate({ runId, toolCallId: 'call-0-1', by: 'ops' });
      await client.declineToolCallGenerate({ runId, toolCallId: 'call-0-0', by: 'ops', reason: 'not a' });
    },
  },
  'suspend-and-resume': {
    agentId: 'toolbox-agent',
    prompt: 'Ask me.',
    options: {
      model: 'scripted',
      script: [{ toolCalls: [{ toolName: 'ask', args: { question: 'Colour?' } }] }, { text: 'Thanks.' }],
    },
    then: async (client, runId) => {
      await client.temporal.workflow
        .getHandle(runId)
        .signal(resumeToolCallSignal, { decisionId: 'bad', resumeData: { answer: 1 } });
      await client.next(runId, { decisionId: 'bad' }).catch(() => undefined);
      await client.resumeGenerate({ answer: 'green' }, { runId, by: 'user' });
    },
  },
  // A run on a thread with an earlier turn: it begins its turn (the earlier messages come back from the
  // activity), records it when it pauses and when it ends; and the thread workflow's own history.
  'thread-turn': {
    agentId: 'toolbox-agent',
    prompt: 'Ask me again.',
    options: {
      model: 'scripted',
      threadId: 'history-thread',
      resourceId: 'history-resource',
      script: [{ toolCalls: [{ toolName: 'ask', args: { question: 'Colour?' } }] }, { text: 'Thanks.' }],
    },
    before: async (client) => {
      await client.generate('toolbox-agent', 'First turn.', {
        model: 'scripted',
        threadId: 'history-thread',
        resourceId: 'history-resource',
        script: [{ toolCalls: [{ toolName: 'add', args: { a: 1, b: 2 } }] }, { text: 'Three.' }],
      });
    },
    then: async (client, runId) => {
      await client.resumeGenerate({ answer: 'green' }, { runId, by: 'user' });
    },
    alsoRecord: threadWorkflowId('history-resource', 'history-thread'),
  },
  // A supervisor on a thread delegates to a sub-agent it shares the thread with: the sub-agent's run
  // reads the thread (readThreadHistory) and records nothing there.
  'supervisor-thread-context': {
    agentId: 'sharing-supervisor',
    prompt: 'Have the leaf greet me.',
    options: {
      ...sharedThread,
      script: [
        { toolCalls: [{ toolName: 'agent-leaf', args: { prompt: 'Greet the user by name.' } }] },
        { text: 'Done.' },
      ],
      subAgentOptions: { leaf: { script: [{ text: 'Hello Ada!' }] } },
    },
    before: async (client) => {
      await client.generate('sharing-supervisor', 'My name is Ada.', {
        ...sharedThread,
        script: [{ text: 'Hi Ada.' }],
      });
    },
    alsoRecordChild: 'call-0-0',
  },
  // A run on a thread whose agent keeps a working memory: its turn begins with the memory an earlier run
  // stored, an update over the bound is refused, the next one stored; and the thread workflow's history.
  'working-memory': {
    agentId: 'memory-agent',
    prompt: 'I moved to Oslo.',
    options: {
      model: 'scripted',
      threadId: 'history-memory-thread',
      resourceId: 'history-resource',
      script: [
        { toolCalls: [{ toolName: 'updateWorkingMemory', args: { memory: 'x'.repeat(101) } }] },
        { toolCalls: [{ toolName: 'updateWorkingMemory', args: { memory: '# User\n- Name: Ada\n- City: Oslo' } }] },
        { text: 'Noted.' },
      ],
    },
    before: async (client) => {
      await client.generate('memory-agent', 'I am Ada.', {
        model: 'scripted',
        threadId: 'history-memory-thread',
        resourceId: 'history-resource',
        script: [
          { toolCalls: [{ toolName: 'updateWorkingMemory', args: { memory: '# User\n- Name: Ada' } }] },
          { text: 'Hello Ada.' },
        ],
      });
    },
    alsoRecord: threadWorkflowId('history-resource', 'history-memory-thread'),
  },
  // A run on a thread whose earlier turn wrote a task list: the list comes back with the earlier messages,
  // the run checks it and changes it (updates of the thread workflow, from the tools' activities).
  'thread-tasks': {
    agentId: 'support-agent',
    prompt: 'How far along are we?',
    options: {
      model: 'scripted',
      threadId: 'history-tasks-thread',
      resourceId: 'history-resource',
      script: [
        { toolCalls: [{ toolName: 'task_check', args: {} }] },
        // Refused (a second task in progress), then done right.
        { toolCalls: [{ toolName: 'task_update', args: { id: 'check', status: 'in_progress' } }] },
        { toolCalls: [{ toolName: 'task_complete', args: { id: 'switch' } }] },
        { text: 'Two of three tasks are done.' },
      ],
    },
    before: async (client) => {
      await client.generate('support-agent', 'Give the site a green theme.', {
        model: 'scripted',
        threadId: 'history-tasks-thread',
        resourceId: 'history-resource',
        script: planTasksScript,
      });
    },
    alsoRecord: threadWorkflowId('history-resource', 'history-tasks-thread'),
  },
  'supervisor-approve-at-depth': {
    agentId: 'supervisor',
    prompt: 'Delete the old customer list.',
    options: supervisorDeleteOptions,
    then: async (client, runId) => {
      await client.approveToolCallGenerate({ runId, by: 'ops' });
    },
  },
  'streamed-guarded': {
    agentId: 'toolbox-agent',
    prompt: 'go',
    options: {
      model: 'scripted',
      script: [
        { text: 'Checking the database first.', toolCalls: [{ toolName: 'guarded', args: { target: 'db' } }] },
        { text: 'Done with the database.' },
      ],
    },
    streamGraceMs: 3000,
    then: async (client, runId) => {
      for await (const chunk of client.subscribe(runId)) void chunk;
      const handle = client.temporal.workflow.getHandle(runId);
      // A grace period past the bound (refused), and publishes from outside (dropped).
      await handle.signal('approveToolCall', { decisionId: 'too-long', streamGraceMs: 2 ** 53 - 1 });
      await handle.signal('__temporal_workflow_stream_publish', { items: [], publisher_id: 'p', sequence: 1 });
      const forged = { type: 'text-delta', stepNumber: 0, attempt: 1, id: 'x', delta: 'forged' };
      await handle.signal(publishChunksSignal.name, { token: 'guess', publisher: 'p', sequence: 1, chunks: [forged] });
      for await (const chunk of await client.approveToolCall({ runId, by: 'ops' })) void chunk;
      await handle.executeUpdate('__temporal_workflow_stream_poll', { args: [{}] }).catch(() => undefined);
      // Cancelled in its grace period, which ends it.
      await handle.cancel();
    },
  },
  'client-tool': {
    agentId: 'toolbox-agent',
    prompt: 'Pick one.',
    options: {
      model: 'scripted',
      script: [{ toolCalls: [{ toolName: 'pick', args: { options: ['red', 'blue'] } }] }, { text: 'Blue.' }],
    },
    then: async (client, runId) => {
      await client.submitToolResultGenerate({ runId, result: 'blue', by: 'ui' });
    },
  },
  transforms: {
    agentId: 'transform-agent',
    prompt: 'Everything secret.',
    options: {
      model: 'scripted',
      script: [
        {
          toolCalls: [
            { toolName: 'lookupCustomer', args: { customerId: 'c-1' } },
            { toolName: 'openVault', args: { vault: 'main', password: 'hunter2' } },
            { toolName: 'unlock', args: { door: 'front' } },
            { toolName: 'charge', args: {} },
            { toolName: 'leaky', args: {} },
            { toolName: 'pickCard', args: {} },
          ],
        },
        { text: 'Done.' },
      ],
    },
    then: async (client, runId) => {
      await client.approveToolCallGenerate({ runId, toolCallId: 'call-0-1', by: 'ops' });
      await client.resumeGenerate({ code: '1234' }, { runId, toolCallId: 'call-0-2', by: 'user' });
      await client.submitToolResultGenerate({ runId, toolCallId: 'call-0-5', result: { card: '4111 1111' }, by: 'ui' });
    },
  },
  // The provider's web search and a function call in one step (the canned Responses API), with a hook and a transform.
  'web-search': { agentId: 'web-search-agent', prompt: 'How many people live in Lyon?', options: {} },
  // A supervisor chain, streamed, started by a tracing client: trace headers on the start, the
  // activities, the children and the decision forwarded down.
  'traced-supervisor': {
    agentId: 'supervisor',
    prompt: 'Delete the old customer list.',
    options: supervisorDeleteOptions,
    streamGraceMs: 0,
    traced: true,
    then: async (client, runId) => {
      await client.approveToolCallGenerate({ runId, by: 'ops' });
    },
  },
  'agent-hooks': {
    agentId: 'hooked-agent',
    prompt: 'Go.',
    options: {
      model: 'scripted',
      script: [
        {
          toolCalls: [
            { toolName: 'record', args: { note: 'forbidden' } },
            { toolName: 'record', args: { note: 'fine' } },
            { toolName: 'explode', args: {} },
            { toolName: 'pick', args: { options: ['a', 'b'] } },
          ],
        },
        { text: 'Done.' },
      ],
    },
    then: async (client, runId) => {
      await client.submitToolResultGenerate({ runId, result: 'b', by: 'ui' });
    },
  },
  'mcp-tool': {
    agentId: 'mcp-notes',
    prompt: 'Add, then delete the note.',
    options: {
      model: 'scripted',
      script: [
        {
          toolCalls: [
            { toolName: 'notes_add', args: { a: 2, b: 3 } },
            { toolName: 'notes_delete_note', args: { id: 'n1' } },
          ],
        },
        { text: 'Done.' },
      ],
    },
    then: async (client, runId) => {
      await client.approveToolCallGenerate({ runId, by: 'ops' });
    },
  },
  // A workflow tool whose workflow suspends (#29): a raw resume its resume schema refuses (recorded as
  // refused, still waiting), then one that fits; the workflow runs again as a child of its own.
  'workflow-tool-suspend': {
    agentId: 'refund-flow-agent',
    prompt: 'refund o-1',
    options: { model: 'scripted', script: [{ toolCalls: [refundCall('o-1', 30)] }, { text: 'Refunded.' }] },
    then: async (client, runId) => {
      await client.temporal.workflow
        .getHandle(runId)
        .signal(resumeToolCallSignal, { decisionId: 'bad', resumeData: { ok: 'yes' } });
      await client.next(runId, { decisionId: 'bad' }).catch(() => undefined);
      await client.decide({ kind: 'resume', runId, resumeData: { ok: true }, principal: 'ops' }, { then: 'result' });
    },
  },
  'run-client-tools': {
    agentId: 'toolbox-agent',
    prompt: 'Pick a colour.',
    options: {
      model: 'scripted',
      clientTools: {
        pick_color: {
          description: 'Asks the user to pick a colour',
          inputSchema: { type: 'object', properties: { options: { type: 'array', items: { type: 'string' } } } },
          requireApproval: true,
        },
      },
      script: [{ toolCalls: [{ toolName: 'pick_color', args: { options: ['red', 'blue'] } }] }, { text: 'Blue.' }],
    },
    then: async (client, runId) => {
      await client.approveToolCallGenerate({ runId, by: 'ops' });
      await client.submitToolResultGenerate({ runId, result: 'blue', by: 'ui' });
    },
  },
  // 0.4.0's approvals. The agent's rules allow a small transfer and deny a large one; a person approves
  // the third (patch approval-rules; the call asks the agent's grant book first, patch standing-grants).
  'approval-rules': {
    agentId: 'approvals-bank',
    prompt: 'pay bob three times',
    options: bankRun(
      bankScript(
        { toolName: 'transfer', args: { to: 'bob', amount: 3 } },
        { toolName: 'transfer', args: { to: 'bob', amount: 900 } },
        { toolName: 'transfer', args: { to: 'bob', amount: 50 } },
      ),
    ),
    then: async (client, runId) => {
      await client.decide({ kind: 'approve', runId, principal: ann }, { then: 'result' });
    },
  },
  // A call that needs two approvers: Ann's approval is counted, Sam's makes it run.
  quorum: {
    agentId: 'approvals-bank',
    prompt: 'wire 100 to carol',
    options: bankRun(bankScript({ toolName: 'wire', args: { to: 'carol', amount: 100 } })),
    then: async (client, runId) => {
      await client.decide({ kind: 'approve', runId, principal: ann });
      await client.decide({ kind: 'approve', runId, principal: sam }, { then: 'result' });
    },
  },
  // A call with a preview (patch tool-previews): made before the wait, after the approval (bound to its
  // hash) and inside the execution.
  'tool-preview': {
    agentId: 'approvals-bank',
    prompt: 'pay invoice 7',
    options: bankRun(bankScript({ toolName: 'payInvoice', args: { invoice: 'inv-7', amount: 120 } })),
    then: async (client, runId) => {
      const [call] = (await client.getRun(runId)).pendingToolCalls;
      const approval = { kind: 'approve' as const, runId, fingerprint: call!.fingerprint, principal: ann };
      await client.decide(approval, { then: 'result' });
    },
  },
  // A standing grant (patch standing-grants): Ann makes one from an earlier run's waiting call on the
  // thread; this run's transfer is approved by it. The grant book's history is kept too.
  'standing-grant': {
    agentId: 'approvals-bank',
    prompt: 'pay bob 20',
    options: { ...bankRun(bankScript({ toolName: 'transfer', args: { to: 'bob', amount: 20 } })), ...grantThread },
    before: async (client) => {
      const script = bankScript({ toolName: 'transfer', args: { to: 'bob', amount: 40 } });
      const earlier = await client.generate('approvals-bank', 'pay bob 40', { ...bankRun(script), ...grantThread });
      const [call] = earlier.pendingToolCalls;
      const { runId } = earlier;
      const grant = { runId, toolCallId: call!.toolCallId, fingerprint: call!.fingerprint, principal: ann };
      await client.grants.create({ ...grant, scope: 'thread', where: ['amount<=50', 'to=bob'], hours: 1 });
      await client.decide({ kind: 'approve', runId, principal: ann }, { then: 'result' });
    },
    alsoRecord: grantBookId('approvals-bank', BANK_RESOURCE),
    alsoRecordAs: 'book',
  },
  // The model judge (patch approval-judge), through @ai-sdk/openai to the recorder's OpenAI-compatible
  // server: it allows one refund, denies another, and hands the third to a person.
  'approval-judge': {
    agentId: 'judged-bank',
    prompt: 'refund three orders',
    options: bankRun(
      bankScript(
        { toolName: 'refund', args: { order: 'o-1', amount: 20 } },
        { toolName: 'refund', args: { order: 'o-2', amount: 2000 } },
        { toolName: 'refund', args: { order: 'o-3', amount: 300 } },
      ),
    ),
    then: async (client, runId) => {
      await client.decide({ kind: 'approve', runId, principal: ann }, { then: 'result' });
    },
  },
};

const only = process.argv.slice(2);
const unknown = only.filter((name) => !(name in recordings));
if (unknown.length > 0) {
  console.error(`record: no recording named ${unknown.join(', ')}; known: ${Object.keys(recordings).join(', ')}`);
  process.exit(2);
}
const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const corpus = new URL(`./${version}/`, import.meta.url);
const recorded = await readdir(corpus).catch(() => [] as string[]);
if (only.length === 0 && recorded.some((f) => f.endsWith('.json'))) {
  // A release's corpus is what that release left in flight: recording it again from newer code loses that.
  console.error(
    `record: test/histories/${version}/ holds the corpus of ${version} already; for a new release, set its ` +
      'version in package.json first; to add or redo histories of this one, name them: npm run record-corpus -- NAME',
  );
  process.exit(2);
}
await mkdir(corpus, { recursive: true });
const taskQueue = `record-${randomUUID()}`;
// The judge's provider: the real @ai-sdk/openai over HTTP, to a server on localhost that answers for it.
const judgeServer = await startFakeOpenAI((request) => judgeAnswer(String(request.messages.at(-1)?.content)));
judgeServer.useInThisProcess();
// Whatever the environment says: only the recordings that say so are traced (their spans go nowhere).
const tracing = createTracing({ spanProcessor: new SimpleSpanProcessor(new InMemorySpanExporter()) });
const plainClient = await AgentClient.connect({ taskQueue, tracing: false });
const tracingClient = await AgentClient.connect({ taskQueue, tracing });
const worker = await createWorker({
  agents: [
    weatherAgent,
    recordsAgent,
    toolboxAgent,
    supervisorAgent,
    sharingSupervisor,
    supportAgent,
    transformAgent,
    hookedAgent,
    webSearchAgent,
    mcpNotesAgent,
    memoryAgent,
    autoResumeAgent,
    refundFlowAgent(workflowQueue),
    approvalsBank,
    judgedBank,
  ],
  taskQueue,
  enableScriptedModel: true,
  tracing,
});
const running = worker.run();
const workflowConnection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
const workflowWorker = await Worker.create({
  connection: workflowConnection,
  taskQueue: workflowQueue,
  workflowsPath: fileURLToPath(new URL('../fixtures/workflows.ts', import.meta.url)),
});
const workflowsRunning = workflowWorker.run();
try {
  for (const [name, recording] of Object.entries(recordings)) {
    const {
      agentId,
      prompt,
      options,
      streamGraceMs,
      traced,
      then,
      before,
      alsoRecord,
      alsoRecordChild,
      alsoRecordFirst,
    } = recording;
    if (only.length > 0 && !only.includes(name)) continue;
    const client = traced ? tracingClient : plainClient;
    await before?.(client);
    // The replay test replays with this workflow id, which child workflow ids are made from.
    const start = { ...options, runId: `history-${name}` };
    const { runId } =
      streamGraceMs === undefined
        ? await client.start(agentId, prompt, start)
        : await client.stream(agentId, prompt, { ...start, streamGraceMs });
    await client.next(runId).catch(() => undefined); // failed runs are recorded too
    await then?.(client, runId);
    await client.result(runId).catch(() => undefined);
    const history = await client.temporal.workflow.getHandle(runId).fetchHistory();
    const file = new URL(`${name}.json`, corpus);
    await writeFile(file, historyToJSON(history) + '\n');
    console.log(`recorded ${name}: ${history.events?.length} events -> ${file.pathname}`);
    if (alsoRecord) {
      const other = await client.temporal.workflow.getHandle(alsoRecord).fetchHistory();
      const otherFile = new URL(`${name}-${recording.alsoRecordAs ?? 'thread'}.json`, corpus);
      await writeFile(otherFile, historyToJSON(other) + '\n');
      console.log(`recorded ${alsoRecord}: ${other.events?.length} events -> ${otherFile.pathname}`);
    }
    if (alsoRecordFirst) {
      const firstRunId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.firstExecutionRunId ?? undefined;
      const first = await client.temporal.workflow.getHandle(runId, firstRunId).fetchHistory();
      const firstFile = new URL(`${name}-first.json`, corpus);
      await writeFile(firstFile, historyToJSON(first) + '\n');
      console.log(`recorded the first run of ${runId}: ${first.events?.length} events -> ${firstFile.pathname}`);
    }
    if (alsoRecordChild) {
      const childId = `${runId}::${alsoRecordChild}`;
      const child = await client.temporal.workflow.getHandle(childId).fetchHistory();
      const childFile = new URL(`${name}-child.json`, corpus);
      await writeFile(childFile, historyToJSON(child) + '\n');
      console.log(`recorded ${childId}: ${child.events?.length} events -> ${childFile.pathname}`);
    }
  }
} finally {
  worker.shutdown();
  workflowWorker.shutdown();
  await running;
  await workflowsRunning;
  await workflowConnection.close();
  await plainClient.close();
  await tracingClient.close();
  await tracing.shutdown();
  await judgeServer.close();
}
