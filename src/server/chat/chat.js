// The chat page: React and the AI SDK's own useChat, over this server's UI message stream (see
// transport.js). Bundled by build.js (esbuild) into dist/chat/chat.js. Everything a run carries reaches
// the page through React, as text: never as HTML.
import { useChat } from '@ai-sdk/react';
import { createElement as h, useEffect, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { TOKEN_KEY } from './session.js';
import { Composer, SentMeanwhile, useMeanwhile } from './composer.js';
import { RunTransport } from './transport.js';

const json = (value) => JSON.stringify(value, null, 2) ?? 'undefined';
const currentKey = (agentId) => `durable-agents.chat.${agentId}.current`;
const messagesKey = (chatId) => `durable-agents.chat.${chatId}.messages`;

/** The chat (a thread of the agent) this tab is on: kept across reloads, a new one on "New chat". */
function chatIdOf(agentId, fresh) {
  let chatId = sessionStorage.getItem(currentKey(agentId));
  if (!chatId || fresh) {
    chatId = `chat-${crypto.randomUUID()}`;
    sessionStorage.setItem(currentKey(agentId), chatId);
  }
  return chatId;
}

function App() {
  const [token, setToken] = useState(() => sessionStorage.getItem(TOKEN_KEY));
  const [signInError, setSignInError] = useState('');
  const [who, setWho] = useState('');
  const [agentId, setAgentId] = useState(() => new URLSearchParams(location.search).get('agent') ?? '');
  const [chatId, setChatId] = useState(() => (agentId ? chatIdOf(agentId, false) : ''));

  const signOut = (message = '') => {
    sessionStorage.removeItem(TOKEN_KEY);
    setToken(null);
    setWho('');
    setSignInError(message);
  };
  useEffect(() => {
    if (!token) return;
    let current = true;
    fetch('/session', { headers: { authorization: `Bearer ${token}` }, cache: 'no-store' })
      .then(async (res) => {
        if (!current) return;
        if (res.status === 401) return signOut('The server refused this token (401). Sign in again.');
        const { principal: p } = await res.json();
        const tenant = p?.tenant === '*' ? ', all tenants' : p?.tenant ? `, tenant ${p.tenant}` : '';
        setWho(
          p
            ? `Signed in as ${p.name ? `${p.name} (${p.id})` : p.id}${tenant}`
            : 'Signed in (the server has no authentication: loopback only)',
        );
      })
      .catch((err) => current && setWho(`cannot reach the server (${err.message})`));
    return () => {
      current = false;
    };
  }, [token]);

  const openAgent = (id) => {
    const url = new URL(location.href);
    url.searchParams.set('agent', id);
    history.replaceState(null, '', url);
    setAgentId(id);
    setChatId(chatIdOf(id, false));
  };

  return h(
    'div',
    null,
    h(
      'header',
      null,
      h('h1', null, agentId ? `Chat with ${agentId}` : 'Chat'),
      token && h('p', { id: 'who' }, who),
      token &&
        agentId &&
        h('button', { type: 'button', onClick: () => setChatId(chatIdOf(agentId, true)) }, 'New chat'),
      token && h('button', { type: 'button', onClick: () => signOut() }, 'Sign out'),
    ),
    !token
      ? h(SignIn, {
          error: signInError,
          onToken: (t) => {
            sessionStorage.setItem(TOKEN_KEY, t);
            setSignInError('');
            setToken(t);
          },
        })
      : !agentId
        ? h(AgentPicker, { onAgent: openAgent })
        : h(Chat, { key: chatId, agentId, chatId }),
  );
}

function SignIn({ error, onToken }) {
  const [value, setValue] = useState('');
  return h(
    'form',
    {
      id: 'sign-in',
      onSubmit: (event) => {
        event.preventDefault();
        if (value.trim()) onToken(value.trim());
      },
    },
    h(
      'label',
      null,
      'Token ',
      h('input', {
        id: 'token',
        type: 'password',
        autoComplete: 'off',
        required: true,
        value,
        onChange: (e) => setValue(e.target.value),
      }),
    ),
    h('button', { type: 'submit' }, 'Sign in'),
    h(
      'p',
      { className: 'hint' },
      'A bearer token of this server (e.g. its SERVER_DEV_TOKEN), kept in this tab only and shared with the inbox.',
    ),
    h('p', { id: 'sign-in-error', className: 'error', role: 'alert' }, error),
  );
}

function AgentPicker({ onAgent }) {
  const [value, setValue] = useState('');
  return h(
    'form',
    {
      id: 'agent-picker',
      onSubmit: (event) => {
        event.preventDefault();
        if (value.trim()) onAgent(value.trim());
      },
    },
    h('label', null, 'Agent ', h('input', { id: 'agent', value, onChange: (e) => setValue(e.target.value) })),
    h('button', { type: 'submit' }, 'Open'),
  );
}

function Chat({ agentId, chatId }) {
  const transport = useMemo(() => new RunTransport(agentId), [agentId]);
  const saved = useMemo(() => JSON.parse(sessionStorage.getItem(messagesKey(chatId)) ?? '[]'), [chatId]);
  // resume: after a reload, the transport rebuilds the current run's message and reads on where it was.
  const chat = useChat({ id: chatId, transport, messages: saved, resume: true });
  const { messages, status, error, sendMessage } = chat;
  useEffect(() => sessionStorage.setItem(messagesKey(chatId), JSON.stringify(messages)), [chatId, messages]);
  const busy = status === 'submitted' || status === 'streaming';
  const actions = {
    busy,
    decide: async (approvalId, approved, reason) => {
      await chat.addToolApprovalResponse({ id: approvalId, approved, ...(reason ? { reason } : {}) });
      await sendMessage();
    },
    answer: (runId, suspended, answer) =>
      sendMessage(undefined, {
        body: {
          resume: {
            runId,
            toolCallId: suspended.toolCallId,
            fingerprint: suspended.fingerprint,
            resumeData: { answer },
          },
        },
      }),
  };
  const [meanwhile, send] = useMeanwhile({ busy, chatId, transport, start: (text) => sendMessage({ text }) });
  return h(
    'main',
    { id: 'chat' },
    h(
      'ol',
      { id: 'messages' },
      messages.map((message) => h(Message, { key: message.id, message, actions })),
    ),
    h(SentMeanwhile, { sent: meanwhile.sent }),
    h('p', { id: 'status', role: 'status' }, busy ? 'The agent is answering…' : ''),
    error && h('p', { id: 'chat-error', className: 'error', role: 'alert' }, error.message),
    meanwhile.refused && h('p', { id: 'message-refused', className: 'error', role: 'alert' }, meanwhile.refused),
    h(Composer, { onSend: send }),
  );
}

function Message({ message, actions }) {
  // A suspended call's payload and fingerprint come as a data part beside the call.
  const suspended = new Map(
    message.parts.filter((p) => p.type === 'data-tool-suspended').map((p) => [p.data.toolCallId, p.data]),
  );
  return h(
    'li',
    { className: `message ${message.role}` },
    h('span', { className: 'role' }, message.role === 'user' ? 'You' : 'Agent'),
    message.parts.map((part, i) => {
      if (part.type === 'text') return h('p', { key: i, className: 'text' }, part.text);
      if (part.type === 'dynamic-tool' || part.type.startsWith('tool-')) {
        const props = { key: i, runId: message.id, part, suspended: suspended.get(part.toolCallId), actions };
        return h(ToolCall, props);
      }
      return null;
    }),
  );
}

function ToolCall({ runId, part, suspended, actions }) {
  const name = part.type === 'dynamic-tool' ? part.toolName : part.type.slice('tool-'.length);
  return h(
    'div',
    { className: `tool ${part.state}`, 'data-call': part.toolCallId },
    h('div', { className: 'call' }, 'tool call ', h('strong', null, name), h('code', null, json(part.input))),
    part.state === 'approval-requested' && h(Approval, { approvalId: part.approval.id, actions }),
    part.state === 'approval-responded' &&
      h('p', { className: 'note' }, part.approval.approved ? 'Approved; it runs.' : 'Declined.'),
    part.state === 'input-available' && suspended && h(Question, { runId, suspended, actions }),
    part.state === 'output-available' && h('pre', { className: 'output' }, json(part.output)),
    part.state === 'output-denied' && h('p', { className: 'note' }, 'Declined: it did not run.'),
    part.state === 'output-error' && h('p', { className: 'error' }, part.errorText),
  );
}

function Approval({ approvalId, actions }) {
  const [reason, setReason] = useState('');
  return h(
    'div',
    { className: 'approval' },
    h('p', null, 'This call waits for approval.'),
    h('button', { type: 'button', disabled: actions.busy, onClick: () => actions.decide(approvalId, true) }, 'Approve'),
    h('input', {
      name: 'reason',
      placeholder: 'reason (for a decline)',
      'aria-label': 'Reason',
      value: reason,
      onChange: (e) => setReason(e.target.value),
    }),
    h(
      'button',
      { type: 'button', disabled: actions.busy, onClick: () => actions.decide(approvalId, false, reason) },
      'Decline',
    ),
  );
}

/** An `ask_user` question (or another suspended call's payload) and its answers. */
function Question({ runId, suspended, actions }) {
  const [text, setText] = useState('');
  const payload = suspended.payload ?? {};
  if (suspended.toolName !== 'ask_user') {
    return h('p', { className: 'note' }, 'It waits to be resumed: ', h('code', null, json(payload)));
  }
  const options = Array.isArray(payload.options) ? payload.options : undefined;
  return h(
    'div',
    { className: 'question' },
    h('p', null, String(payload.question ?? '')),
    options
      ? options.map((option) =>
          h(
            'button',
            {
              key: option,
              type: 'button',
              disabled: actions.busy,
              onClick: () =>
                void actions.answer(runId, suspended, payload.selectionMode === 'multi_select' ? [option] : option),
            },
            option,
          ),
        )
      : h(
          'form',
          {
            onSubmit: (event) => {
              event.preventDefault();
              if (text.trim()) void actions.answer(runId, suspended, text.trim());
            },
          },
          h('input', { name: 'answer', 'aria-label': 'Answer', value: text, onChange: (e) => setText(e.target.value) }),
          h('button', { type: 'submit', disabled: actions.busy }, 'Answer'),
        ),
  );
}

createRoot(document.getElementById('root')).render(h(App));
