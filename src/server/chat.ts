/**
 * The chat page: a page the HTTP server serves at `/chat` that talks to an agent through the AI SDK's
 * `useChat` (React) over the server's UI message stream. Its HTML and CSS are served as they are; its
 * script is bundled by `build.js` (the `chat` target, run by `npm ci`) into `dist/chat/chat.js`. Like
 * the inbox, the page holds no data: it signs in with a bearer token and reads only what the routes
 * behind authentication give the signed-in principal.
 */
import { readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import type { ServerEnv } from './auth/guards.js';
import { pageHeaders } from './inbox.js';

/** The page's script, as `build.js chat` writes it: beside src/ and lib/ alike. */
export const CHAT_BUNDLE = new URL('../../dist/chat/chat.js', import.meta.url);

const asset = (name: string): string => readFileSync(new URL(`./chat/${name}`, import.meta.url), 'utf8');

/** The bundle, or why it is missing and how to make it: a server without it still serves everything else. */
function bundle(): { js: string } | { missing: string } {
  try {
    return { js: readFileSync(CHAT_BUNDLE, 'utf8') };
  } catch (err) {
    return {
      missing:
        `the chat page's script is not built (${(err as Error).message}); ` +
        'run `npm run build` (npm ci does it) and restart the server',
    };
  }
}

/**
 * Serves the page and its files with no authentication (they hold no data, and the page must load before
 * anyone signs in), with the inbox's strict Content-Security-Policy: scripts and data from this server only.
 */
export function serveChatPage(app: Hono<ServerEnv>): void {
  const files = { html: asset('chat.html'), css: asset('chat.css'), script: bundle() };
  const headers = pageHeaders;
  app.get('/chat', (c) => c.body(files.html, 200, headers('text/html; charset=utf-8')));
  app.get('/chat/chat.css', (c) => c.body(files.css, 200, headers('text/css; charset=utf-8')));
  app.get('/chat/chat.js', (c) =>
    'js' in files.script
      ? c.body(files.script.js, 200, headers('text/javascript; charset=utf-8'))
      : c.body(
          `console.error(${JSON.stringify(files.script.missing)});`,
          503,
          headers('text/javascript; charset=utf-8'),
        ),
  );
}
