/**
 * The code samples of Mastra's agent-approval page (`../shared/reference/agent-approval.zh.md`), run
 * as the page writes them against a real worker and dev server. Adapted only as the page needs:
 * imports, `mastra.getAgent(id)` → `client.getAgent(id)`, the model (each run gives the scripted
 * model its script), `process.stdout.write` → a string the test reads, and the placeholders the page
 * leaves to the reader (`showApprovalDialog`), and the thread of blocks 12-15 (automatic resume),
 * which Mastra's `Memory` picks and which is named here (`threadId`, `resourceId`).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/index.js';
import type { AgentHandle, RunStream } from '../../src/client/index.js';
import {
  actionFingerprint,
  approvalBoundAgent,
  approvedFingerprints,
  autoResumeAgent,
  deleted,
  myAgent,
  refunds,
  sensitiveTools,
  supervisorAgent as supervisorDefinition,
  weatherAgent,
} from '../fixtures/mastra-pages.js';
import { startWorker, waitFor, type TestWorker } from '../helpers.js';

let w: TestWorker;
let out = '';
const stdout = { write: (text: string) => (out += text) };
beforeAll(async () => {
  w = await startWorker([myAgent, weatherAgent, approvalBoundAgent, supervisorDefinition, autoResumeAgent]);
});
afterAll(async () => {
  await w?.stop();
});
beforeEach(() => {
  out = '';
});

/** The scripted model: one step that calls a tool, then one that answers. */
const calls = (toolName: string, args: JsonValue, text: string) => [{ toolCalls: [{ toolName, args }] }, { text }];

describe("Mastra's approval page, block by block", () => {
  it('1: a tool with requireApproval pauses the stream; approveToolCall streams the rest', async () => {
    const agent = w.client.getAgent('my-agent');
    const stream = await agent.stream('Delete record abc-123', {
      script: calls('deleteTool', { id: 'abc-123' }, 'Deleted abc-123.'),
    });

    for await (const chunk of stream.fullStream) {
      if (chunk.type === 'tool-call-approval') {
        const approved = await agent.approveToolCall({ runId: stream.runId });
        for await (const c of approved.textStream) stdout.write(c);
      }
    }
    expect(out).toBe('Deleted abc-123.');
    expect(deleted).toContain('abc-123');
  });

  it("2: requireToolApproval on the run; the chunk's payload names the tool and its args; approve or decline", async () => {
    const agent = w.client.getAgent('page-weather-agent');
    const script = calls('weatherTool', { location: 'London' }, 'It is sunny in London.');
    const seen: unknown[] = [];
    for (const choice of ['approve', 'decline'] as const) {
      const stream = await agent.stream("What's the weather in London?", {
        requireToolApproval: true,
        script,
      });

      for await (const chunk of stream.fullStream) {
        if (chunk.type === 'tool-call-approval') {
          seen.push(['Tool:', chunk.payload.toolName], ['Args:', chunk.payload.args]);

          if (choice === 'approve') {
            const approved = await agent.approveToolCall({ runId: stream.runId });
            for await (const c of approved.textStream) stdout.write(c);
          } else {
            const declined = await agent.declineToolCall({ runId: stream.runId });
            for await (const c of declined.textStream) stdout.write(c);
          }
        }
      }
    }
    expect(seen).toEqual([
      ['Tool:', 'weatherTool'],
      ['Args:', { location: 'London' }],
      ['Tool:', 'weatherTool'],
      ['Args:', { location: 'London' }],
    ]);
    // The scripted model says the same either way; what the tool did differs.
    expect(out).toBe('It is sunny in London.It is sunny in London.');
  });

  it('3: a function as requireToolApproval cannot be stored with a run: every call waits, and the client says so', async () => {
    const warnings: string[] = [];
    const { AgentClient } = await import('../../src/client/index.js');
    const client = await AgentClient.connect({
      address: (await import('../helpers.js')).temporalAddress(),
      taskQueue: w.taskQueue,
      warn: (m) => warnings.push(m),
    });
    try {
      const agent = client.getAgent('page-weather-agent');
      const stream = await agent.stream('Clean up old records', {
        requireToolApproval: ({ toolName }: { toolName: string }) => /^delete_/.test(toolName),
        script: calls('weatherTool', { location: 'Paris' }, 'Done.'),
      });
      const chunks = [];
      for await (const chunk of stream.fullStream) chunks.push(chunk.type);
      expect(chunks).toContain('tool-call-approval');
      expect(warnings.join('\n')).toMatch(/requireToolApproval/);
      await agent.declineToolCallGenerate({ runId: stream.runId });
    } finally {
      await client.close();
    }
  });

  it('4-5: a beforeToolCall hook binds the approval to the exact arguments the approver saw', async () => {
    const approvalBound = w.client.getAgent('approval-bound-agent');
    const showApprovalDialog = async (shown: { toolName: string; args: unknown; fingerprint: string }) =>
      shown.toolName === 'issue_refund';
    const stream = await approvalBound.stream('Refund order ord-1042', {
      requireToolApproval: ({ toolName }: { toolName: string }) => sensitiveTools.has(toolName),
      script: [
        { toolCalls: [{ toolName: 'issue_refund', args: { orderId: 'ord-1042' } }] },
        { toolCalls: [{ toolName: 'delete_record', args: { id: 'ord-1042' } }] },
        { text: 'Refunded; the record stays.' },
      ],
    });

    async function consumeApprovalStream(currentStream: typeof stream) {
      for await (const chunk of currentStream.fullStream) {
        if (chunk.type === 'tool-call-approval') {
          const { toolName, toolCallId, args } = chunk.payload;
          const fingerprint = actionFingerprint(toolName, args);

          // Present toolName, args, and fingerprint to your approval UI.
          const approved = await showApprovalDialog({ toolName, args, fingerprint });

          const nextStream = approved
            ? await approveReviewedToolCall(currentStream.runId, toolCallId, fingerprint)
            : await approvalBound.declineToolCall({ runId: currentStream.runId, toolCallId });

          await consumeApprovalStream(nextStream);
        }
      }
    }

    async function approveReviewedToolCall(runId: string, toolCallId: string, fingerprint: string) {
      approvedFingerprints.add(fingerprint);
      return approvalBound.approveToolCall({ runId, toolCallId });
    }

    await consumeApprovalStream(stream);
    const result = await w.client.next(stream.runId);
    expect(result.text).toBe('Refunded; the record stays.');
    expect(result.toolResults).toMatchObject([
      { toolName: 'issue_refund', isError: false, output: 'refunded ord-1042' },
      { toolName: 'delete_record', isError: true, declined: true },
    ]);
    expect(refunds).toEqual(['ord-1042']);

    // An approval that does not match what runs is blocked by the hook: approve with other arguments.
    const edited = await approvalBound.generate('Refund order ord-1', {
      requireToolApproval: true,
      script: calls('issue_refund', { orderId: 'ord-1' }, 'Done.'),
    });
    approvedFingerprints.add(actionFingerprint('issue_refund', { orderId: 'ord-1' }));
    const blocked = await approvalBound.approveToolCallGenerate({ runId: edited.runId, args: { orderId: 'ord-2' } });
    expect(blocked.toolResults[0]).toMatchObject({
      output: 'Tool call blocked: approval did not match issue_refund arguments.',
    });
    expect(refunds).toEqual(['ord-1042']);
    approvedFingerprints.clear();
  });

  it('6: a tool suspends through context.agent.suspend; as the page writes it, it reads only its input', async () => {
    const agent = w.client.getAgent('page-weather-agent');
    const paused = await agent.generate("What's the weather?", { script: calls('weatherTool', {}, 'Sunny.') });
    const question = { question: 'Which city would you like the weather for?' };
    expect(paused.suspendPayload).toMatchObject({ payload: question });
    // The page's tool never reads `resumeData`: resumed, it runs again with the same input and asks again.
    const again = await agent.resumeGenerate({ location: 'Oslo' }, { runId: paused.runId });
    expect(again).toMatchObject({ finishReason: 'suspended', suspendPayload: { payload: question } });
    // Resume data that does not fit its resumeSchema is refused before anything is sent.
    await expect(agent.resumeGenerate({ city: 'Oslo' }, { runId: paused.runId })).rejects.toThrow(/location/);
  });

  it('7: generate pauses with suspendPayload; approveToolCallGenerate and declineToolCallGenerate', async () => {
    const agent = w.client.getAgent('page-weather-agent');
    const logged: unknown[] = [];
    const script = calls('weatherTool', { location: 'Rome' }, 'Found.');
    {
      const output = await agent.generate('Find user John', {
        requireToolApproval: true,
        script,
      });

      if (output.finishReason === 'suspended') {
        logged.push(['Tool requires approval:', output.suspendPayload!.toolName]);

        // Approve
        const result = await agent.approveToolCallGenerate({
          runId: output.runId,
          toolCallId: output.suspendPayload!.toolCallId,
        });
        logged.push(['Final result:', result.text]);
      }
    }
    {
      const output = await agent.generate('Find user John', { requireToolApproval: true, script });
      // Or decline
      const result = await agent.declineToolCallGenerate({
        runId: output.runId,
        toolCallId: output.suspendPayload!.toolCallId,
      });
      expect(result.toolResults[0]).toMatchObject({ declined: true });
    }
    expect(logged).toEqual([
      ['Tool requires approval:', 'weatherTool'],
      ['Final result:', 'Found.'],
    ]);
  });

  it('8-9: a tool with requireApproval and a resumeSchema of { approved }: approveToolCall after the stream ends', async () => {
    const agent = w.client.getAgent('page-weather-agent');
    const stream = await agent.stream("What's the weather in London?", {
      script: calls('testTool', { location: 'London' }, 'London is sunny.'),
    });
    const logged: string[] = [];

    for await (const chunk of stream.fullStream) {
      if (chunk.type === 'tool-call-approval') {
        logged.push(`Approval required for: ${chunk.payload.toolName}`);
      }
    }

    const handleApproval = async () => {
      const approvedStream = await agent.approveToolCall({ runId: stream.runId });

      for await (const chunk of approvedStream.textStream) {
        stdout.write(chunk);
      }
      stdout.write('\n');
    };
    await handleApproval();
    expect(logged).toEqual(['Approval required for: testTool']);
    expect(out).toBe('London is sunny.\n');
    expect((await w.client.next(stream.runId)).toolResults[0]).toMatchObject({
      output: { weather: 'London: ☀️ +21°C' },
    });
  });

  it('10-11: approval by suspend(): the suspended chunk carries suspendPayload; resumeStream({ approved: true })', async () => {
    const agent = w.client.getAgent('page-weather-agent');
    const stream = await agent.stream("What's the weather in London?", {
      script: calls('testToolB', { location: 'London' }, 'London is sunny.'),
    });
    const logged: unknown[] = [];

    for await (const chunk of stream.fullStream) {
      if (chunk.type === 'tool-call-suspended') {
        logged.push(chunk.payload.suspendPayload);
      }
    }

    const handleResume = async () => {
      const resumedStream = await agent.resumeStream({ approved: true }, { runId: stream.runId });

      for await (const chunk of resumedStream.textStream) {
        stdout.write(chunk);
      }
      stdout.write('\n');
    };
    await handleResume();
    expect(logged).toEqual([{ reason: 'Approval required.' }]);
    expect(out).toBe('London is sunny.\n');
    expect((await w.client.next(stream.runId)).toolResults[0]).toMatchObject({
      output: { weather: 'London: ☀️ +21°C' },
    });
  });

  it('13: a tool that asks for a missing city, resumed by hand with the city', async () => {
    const agent = w.client.getAgent('page-weather-agent');
    const stream = await agent.stream("What's the weather like?", {
      script: calls('cityWeatherTool', { city: '' }, 'Here it is.'),
    });
    const logged: unknown[] = [];
    for await (const chunk of stream.fullStream) {
      if (chunk.type === 'tool-call-suspended') logged.push(chunk.payload.suspendPayload);
    }
    expect(logged).toEqual([{ message: 'What city do you want to know the weather for?' }]);
    const resumed = await agent.resumeGenerate({ city: 'San Francisco' }, { runId: stream.runId });
    expect(resumed.toolResults[0]).toMatchObject({
      output: { weather: 'San Francisco: San Francisco: ☀️ +21°C' },
    });
  });

  it('12-15: with autoResumeSuspendedTools, the next message on the thread resumes the tool', async () => {
    const agent = w.client.getAgent('my-agent-auto');
    const memory = { threadId: 'page-auto-thread', resourceId: 'page-auto-user' };
    const stream = await agent.stream("What's the weather like?", {
      ...memory,
      script: [
        { toolCalls: [{ toolName: 'weatherTool', args: { city: '' } }] },
        { text: 'The weather in San Francisco is: San Francisco: ☀️ +21°C' },
      ],
    });

    const logged: unknown[] = [];
    for await (const chunk of stream.fullStream) {
      if (chunk.type === 'tool-call-suspended') {
        logged.push(chunk.payload.suspendPayload);
      }
    }

    // User sends follow-up on the same thread; the model reads { city } from it (its answer, scripted).
    const resumedStream = await agent.stream('San Francisco', {
      ...memory,
      script: [{ text: JSON.stringify({ resumeData: { city: 'San Francisco' }, missing: null }) }],
    });
    for await (const chunk of resumedStream.textStream) {
      stdout.write(chunk);
    }
    expect(logged).toEqual([{ message: 'What city do you want to know the weather for?' }]);
    expect(out).toBe('The weather in San Francisco is: San Francisco: ☀️ +21°C');
    expect(resumedStream.runId).toBe(stream.runId);
    const result = await w.client.result(stream.runId);
    expect(result.steps[0]!.toolResults[0]).toMatchObject({
      output: { weather: 'San Francisco: San Francisco: ☀️ +21°C' },
    });
  });

  it('16: listSuspendedRuns finds a waiting run from any process, and the right decision continues it', async () => {
    const agent = w.client.getAgent('page-weather-agent');
    // Not the page's thread-123: mastra-samples.test.ts runs that block verbatim on it, and a thread's
    // workflow lives on the task queue of the worker that first served it (here, this file's).
    const thread = { threadId: 'thread-16', resourceId: 'user-16' };
    const texts: string[] = [];
    for (const script of [calls('deleteTool', { id: 'r-16' }, 'Deleted.'), calls('nameTool', {}, 'Named.')]) {
      const paused = await agent.generate('go', { ...thread, script });
      // Visibility catches up with the run's search attributes shortly after it pauses.
      await waitFor('the run listed as waiting', async () =>
        (await agent.listSuspendedRuns(thread)).runs.some((r) => r.runId === paused.runId) ? true : undefined,
      );
      // In the request handler that receives the user's decision (another process would do the same)
      const { runs } = await agent.listSuspendedRuns({
        threadId: 'thread-16',
        resourceId: 'user-16',
      });

      const run = runs[0];
      const toolCall = run?.toolCalls[0];

      if (run && toolCall) {
        let stream: RunStream;
        if (toolCall.requiresApproval) {
          // Suspended by requireApproval — approve or decline the tool call
          stream = await agent.approveToolCall({ runId: run.runId, toolCallId: toolCall.toolCallId });
        } else {
          // Suspended by suspend() — resume with the data the tool asked for
          texts.push(`Tool asked: ${JSON.stringify(toolCall.suspendPayload)}`);
          stream = await agent.resumeStream({ name: 'San Francisco' }, { runId: run.runId });
        }
        for await (const chunk of stream.textStream) stdout.write(chunk);
      }
    }
    expect(texts).toEqual(['Tool asked: {"question":"Which name?"}']);
    expect(out).toBe('Deleted.Named.');
    await waitFor('no run left waiting', async () =>
      (await agent.listSuspendedRuns(thread)).runs.length === 0 ? true : undefined,
    );
  });

  describe('17-20: a sub-agent under a supervisor', () => {
    const supervisor = (): AgentHandle => w.client.getAgent('page-supervisor');
    const delegating = (toolName: string, args: JsonValue) => ({
      script: calls('agent-dataAgent', { prompt: 'Find user with ID 12345' }, 'The user is Ada.'),
      subAgentOptions: { dataAgent: { script: calls(toolName, args, 'Found Ada.') } },
    });

    it("17: the sub-agent's approval shows in the supervisor's stream, and is approved there", async () => {
      const supervisorAgent = supervisor();
      const stream = await supervisorAgent.stream(
        'Find user with ID 12345',
        delegating('findUserTool', { userId: '12345' }),
      );
      const logged: unknown[] = [];

      for await (const chunk of stream.fullStream) {
        if (chunk.type === 'tool-call-approval') {
          logged.push(['Tool requires approval:', chunk.payload.toolName], ['Arguments:', chunk.payload.args]);

          // Approve the tool call
          const resumeStream = await supervisorAgent.approveToolCall({
            runId: stream.runId,
            toolCallId: chunk.payload.toolCallId,
          });

          for await (const resumeChunk of resumeStream.textStream) {
            stdout.write(resumeChunk);
          }
        }
      }
      expect(logged).toEqual([
        ['Tool requires approval:', 'findUserTool'],
        ['Arguments:', { userId: '12345' }],
      ]);
      expect(out).toBe('The user is Ada.');
    });

    it('17 (decline): declineToolCall at the supervisor declines the call in the sub-agent', async () => {
      const supervisorAgent = supervisor();
      const stream = await supervisorAgent.stream(
        'Find user with ID 12345',
        delegating('findUserTool', { userId: '12345' }),
      );
      for await (const chunk of stream.fullStream) {
        if (chunk.type === 'tool-call-approval') {
          // To decline instead, use:
          const declineStream = await supervisorAgent.declineToolCall({
            runId: stream.runId,
            toolCallId: chunk.payload.toolCallId,
          });
          for await (const c of declineStream.textStream) stdout.write(c);
        }
      }
      const leaf = (await w.client.getRun(stream.runId)).decisions.at(-1);
      expect(leaf).toMatchObject({ kind: 'decline', accepted: true });
    });

    it("18-19: a sub-agent's tool suspends; the supervisor resumes it with { confirmed: true }", async () => {
      const supervisorAgent = supervisor();
      const stream = await supervisorAgent.stream('Clean up', delegating('conditionalTool', { operation: 'purge' }));
      const logged: unknown[] = [];
      // When using this tool through a subagent in supervisor agents
      for await (const chunk of stream.fullStream) {
        if (chunk.type === 'tool-call-suspended') {
          logged.push(['Tool suspended:', (chunk.payload.suspendPayload as { message: string }).message]);

          // Resume with confirmation
          const resumeStream = await supervisorAgent.resumeStream({ confirmed: true }, { runId: stream.runId });

          for await (const resumeChunk of resumeStream.textStream) {
            stdout.write(resumeChunk);
          }
        }
      }
      expect(logged).toEqual([['Tool suspended:', 'Confirm: purge?']]);
      expect(out).toBe('The user is Ada.');
    });

    it('20: generate with maxSteps pauses at the supervisor; approveToolCallGenerate finishes it', async () => {
      const supervisorAgent = supervisor();
      const output = await supervisorAgent.generate('Find user with ID 12345', {
        maxSteps: 10,
        ...delegating('findUserTool', { userId: '12345' }),
      });
      const logged: unknown[] = [];

      if (output.finishReason === 'suspended') {
        logged.push(['Tool requires approval:', output.suspendPayload!.toolName]);

        // Approve
        const result = await supervisorAgent.approveToolCallGenerate({
          runId: output.runId,
          toolCallId: output.suspendPayload!.toolCallId,
        });

        logged.push(['Final result:', result.text]);
      }
      expect(logged).toEqual([
        ['Tool requires approval:', 'findUserTool'],
        ['Final result:', 'The user is Ada.'],
      ]);
    });
  });
});
