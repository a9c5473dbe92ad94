// The chat page's transport for useChat: it reads a run's UI message stream (SSE) from this server and
// keeps, in sessionStorage, every event it handed to the page, with its event id. After a reload the
// page gets those events again from here and the rest from the server, which resumes after the last
// event id (Last-Event-ID): nothing is shown twice, nothing is lost.
import { TOKEN_KEY } from './session.js';

/** The routes of a decision, by what the page decides. */
const DECISION_ROUTES = { approve: 'approve', decline: 'decline', resume: 'resume' };

const logKey = (chatId) => `durable-agents.chat.${chatId}.run`;

/** The log of the chat's current run: `{ runId, live, events: [{ id, chunk }] }`, or undefined. */
export function readRunLog(chatId) {
  const text = sessionStorage.getItem(logKey(chatId));
  return text ? JSON.parse(text) : undefined;
}

function writeRunLog(chatId, log) {
  sessionStorage.setItem(logKey(chatId), JSON.stringify(log));
}

function authHeaders(extra = {}) {
  return { authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ''}`, ...extra };
}

/** A refused request as an Error whose message is the server's: its type and why. */
async function refusal(res) {
  try {
    const body = await res.json();
    return new Error(`${body.error.type}: ${body.error.message}`);
  } catch {
    return new Error(`the server answered ${res.status}`);
  }
}

const textOf = (message) =>
  message.parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('');

/** Where a reconnect starts: after the last event seen (a run's stream resumes there), or at the start. */
function resumeFrom(log) {
  const last = log.events.at(-1);
  if (!last) return { query: '?offset=0', headers: {} };
  // After a segment's end (the run waits for a decision) the next segment starts at the next offset.
  if (last.chunk.type === 'finish') return { query: `?offset=${Number(last.id.split(':')[0]) + 1}`, headers: {} };
  return { query: '', headers: { 'last-event-id': last.id } };
}

/**
 * useChat's transport for one agent. A user message starts a run on the chat's thread (its run id
 * chosen here, so that a reload can find the run even before its first event). A decision (an
 * approval answered with `addToolApprovalResponse`, or `body.resume`) goes to the run's decision route,
 * whose stream continues the same assistant message.
 */
export class RunTransport {
  /** A reconnect gives the run's events from its start: the page rebuilds the message from them. */
  resumeStreamIsReplay = true;

  constructor(agentId) {
    this.agentId = agentId;
  }

  async sendMessages({ chatId, messages, messageId, body, abortSignal }) {
    const decision = body?.resume ? { kind: 'resume', ...body.resume } : approvalDecision(messages, messageId);
    if (decision) {
      const { kind, runId, ...rest } = decision;
      const log = readRunLog(chatId);
      const keep = log?.runId === runId ? log : { runId, events: [] };
      writeRunLog(chatId, { ...keep, live: true });
      const res = await fetch(`/runs/${encodeURIComponent(runId)}/${DECISION_ROUTES[kind]}`, {
        method: 'POST',
        headers: authHeaders({ 'content-type': 'application/json' }),
        body: JSON.stringify(rest),
        signal: abortSignal,
      });
      return this.follow(chatId, res);
    }
    const last = messages.at(-1);
    const runId = `chat-${crypto.randomUUID()}`;
    writeRunLog(chatId, { runId, live: true, events: [] });
    const res = await fetch(`/agents/${encodeURIComponent(this.agentId)}/stream`, {
      method: 'POST',
      headers: authHeaders({ 'content-type': 'application/json' }),
      body: JSON.stringify({ prompt: textOf(last), runId, options: { threadId: chatId } }),
      signal: abortSignal,
    });
    return this.follow(chatId, res);
  }

  /**
   * A message for the chat's run while it works (`POST /runs/:runId/messages`): its model reads it at its
   * next step. Resolves to undefined when the run took it, else to the reason it gave.
   */
  async messageRun(chatId, text) {
    const log = readRunLog(chatId);
    if (!log) return 'no run of this chat is working';
    const res = await fetch(`/runs/${encodeURIComponent(log.runId)}/messages`, {
      method: 'POST',
      headers: authHeaders({ 'content-type': 'application/json' }),
      body: JSON.stringify({ text }),
    });
    if (res.status === 202) return undefined;
    const body = await res.json().catch(() => ({}));
    return body?.error?.message ?? `the server answered ${res.status}`;
  }

  /**
   * After a reload: the current run's message rebuilt from the events the page had shown, then, if the
   * run's stream was still being read, what came after them. The page's saved messages may lag behind
   * the log by a render; the log is what it showed.
   */
  async reconnectToStream({ chatId, abortSignal }) {
    const log = readRunLog(chatId);
    if (!log) return null;
    let rest;
    if (log.live) {
      const { query, headers } = resumeFrom(log);
      const res = await fetch(`/runs/${encodeURIComponent(log.runId)}/stream${query}`, {
        headers: authHeaders(headers),
        signal: abortSignal,
      });
      rest = await this.follow(chatId, res);
    }
    const seen = log.events.map((e) => e.chunk);
    return new ReadableStream({
      async start(controller) {
        for (const chunk of seen) controller.enqueue(chunk);
        if (!rest) return controller.close();
        const reader = rest.getReader();
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            controller.enqueue(value);
          }
          controller.close();
        } catch (err) {
          controller.error(err);
        }
      },
    });
  }

  /** The response's SSE events as UI message chunks, each logged with its event id before the page sees it. */
  async follow(chatId, res) {
    if (!res.ok) {
      const log = readRunLog(chatId);
      if (log) writeRunLog(chatId, { ...log, live: false });
      throw await refusal(res);
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    return new ReadableStream({
      async pull(controller) {
        for (;;) {
          const end = buffer.indexOf('\n\n');
          if (end !== -1) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const id = /^id: (.*)$/m.exec(event)?.[1];
            const data = /^data: (.*)$/m.exec(event)?.[1];
            if (data === undefined) continue;
            const log = readRunLog(chatId);
            if (data === '[DONE]') {
              writeRunLog(chatId, { ...log, live: false });
              controller.close();
              return;
            }
            const chunk = JSON.parse(data);
            // An event with no id (an error) is not part of the run's stream: it is not replayed.
            if (id !== undefined) writeRunLog(chatId, { ...log, events: [...log.events, { id, chunk }] });
            controller.enqueue(chunk);
            return;
          }
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            return;
          }
          buffer += value;
        }
      },
      cancel: () => reader.cancel(),
    });
  }
}

/** The approval the person just answered in the message useChat sends for, as a decision of its run. */
function approvalDecision(messages, messageId) {
  const message = messages.find((m) => m.id === messageId && m.role === 'assistant');
  const part = message?.parts.find((p) => p.state === 'approval-responded' && p.toolCallId);
  if (!part) return undefined;
  const { approved, id, reason } = part.approval;
  return {
    kind: approved ? 'approve' : 'decline',
    runId: message.id,
    toolCallId: part.toolCallId,
    fingerprint: id,
    ...(reason ? { reason } : {}),
  };
}
