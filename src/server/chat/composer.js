/**
 * The chat's composer. While the agent works, what the person sends goes to its run
 * (`POST /runs/:runId/messages`), whose model reads it at its next step; otherwise it starts a run.
 */
import { createElement as h, useState } from 'react';

/** The person's messages sent while the agent works, and the reason the run gave for one it refused. */
export function useMeanwhile({ busy, chatId, transport, start }) {
  const [meanwhile, setMeanwhile] = useState({ sent: [], refused: undefined });
  const send = async (text) => {
    if (!busy) {
      setMeanwhile({ sent: [], refused: undefined });
      return start(text);
    }
    const refused = await transport.messageRun(chatId, text);
    setMeanwhile((m) => (refused ? { ...m, refused } : { sent: [...m.sent, text], refused: undefined }));
  };
  return [meanwhile, send];
}

export function SentMeanwhile({ sent }) {
  if (sent.length === 0) return null;
  return h(
    'ul',
    { id: 'sent-meanwhile', 'aria-label': 'Sent while the agent works' },
    sent.map((text, i) => h('li', { key: i }, text)),
  );
}

export function Composer({ onSend }) {
  const [text, setText] = useState('');
  return h(
    'form',
    {
      id: 'composer',
      onSubmit: (event) => {
        event.preventDefault();
        if (!text.trim()) return;
        void onSend(text.trim());
        setText('');
      },
    },
    h('input', {
      id: 'prompt',
      placeholder: 'Message',
      'aria-label': 'Message',
      autoComplete: 'off',
      value: text,
      onChange: (e) => setText(e.target.value),
    }),
    h('button', { type: 'submit' }, 'Send'),
  );
}
