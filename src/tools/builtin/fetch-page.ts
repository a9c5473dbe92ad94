/**
 * One guarded GET with its redirect loop: every URL, the first and each redirect target, is checked
 * (scheme, credentials, address) before its connection opens, and the body is read up to a byte cap.
 */
import { request, type IncomingMessage } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { errorMessage } from '../../errors.js';
import {
  type AddressGuard,
  guardedConnection,
  refusedAs,
  resolveAllowed,
  WebFetchRefusal,
} from './guarded-connection.js';
import { parseIpLiteral } from './ip-address.js';

/** The bounds of one fetch. */
export interface FetchLimits {
  /** For the whole fetch: every redirect, connection and the body. */
  timeoutMs: number;
  maxRedirects: number;
  /** Characters of content returned; more sets `truncated`. */
  maxChars: number;
  /** Bytes of (decompressed) body read; the rest is never read. */
  maxBytes: number;
}

/** A fetched page, as `web_fetch` returns it. */
export interface FetchedPage {
  content: string;
  truncated: boolean;
  status: number;
  statusText: string;
  /** The Content-Type header as sent, or null when there was none. */
  contentType: string | null;
  /** The final URL, after redirects. */
  url: string;
  /** True for a 2xx status. */
  ok: boolean;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'durable-agents-web-fetch/0.1';
const ACCEPT = 'text/html, text/plain, text/markdown, application/json, application/xml;q=0.9, text/*;q=0.8';
const TEXT_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-ndjson',
]);

/**
 * Fetches `input` with GET, following at most `limits.maxRedirects` redirects. Throws with a reason
 * (a {@link WebFetchRefusal} for what the rules refuse) for anything that yields no page.
 */
export async function fetchPage(
  input: string,
  guard: AddressGuard,
  limits: FetchLimits,
  cancel?: AbortSignal,
): Promise<FetchedPage> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = cancel ? AbortSignal.any([timeout, cancel]) : timeout;
  let url = parseTarget(input);
  let redirects = 0;
  try {
    for (; ; redirects++) {
      await abortable(checkHost(url, guard), signal);
      const response = await get(url, guard, signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (!REDIRECT_STATUSES.has(status) || location === undefined) return await readPage(response, url, limits);
      response.destroy();
      if (redirects === limits.maxRedirects) {
        throw new WebFetchRefusal(`more than ${limits.maxRedirects} redirects: it redirects again, to ${location}`);
      }
      url = redirectTarget(location, url);
    }
  } catch (err) {
    const where = redirects > 0 ? `${url.href} (redirect ${redirects} from ${input})` : url.href;
    if (timeout.aborted) throw new Error(`timed out after ${limits.timeoutMs} ms fetching ${where}`, { cause: err });
    if (cancel?.aborted) throw new Error(`cancelled while fetching ${where}`, { cause: err });
    if (err instanceof WebFetchRefusal) throw new WebFetchRefusal(`refused ${where}: ${err.message}`, { cause: err });
    throw new Error(`fetching ${where} failed: ${errorMessage(err)}`, { cause: err });
  }
}

/** Parses a URL and applies the rules that need no network: http(s) only, no credentials. */
function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebFetchRefusal(`not an absolute URL: ${JSON.stringify(raw.slice(0, 200))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebFetchRefusal(`only http and https URLs are fetched, not ${url.protocol} (${url.href.slice(0, 200)})`);
  }
  if (url.username || url.password) {
    // The credentials stay out of the reason: it goes into the conversation and the run's history.
    throw new WebFetchRefusal(
      `the URL carries credentials (${url.protocol}//***@${url.host}${url.pathname}); ` +
        'web_fetch sends none, remove them',
    );
  }
  return url;
}

function redirectTarget(location: string, from: URL): URL {
  let next: string;
  try {
    next = new URL(location, from).href;
  } catch {
    throw new WebFetchRefusal(`it redirects to ${JSON.stringify(location.slice(0, 200))}, which is not a URL`);
  }
  try {
    return parseTarget(next);
  } catch (err) {
    throw new WebFetchRefusal(`it redirects to a refused URL: ${errorMessage(err)}`, { cause: err });
  }
}

/** Refuses an IP literal host that is not allowed, and a host name with any address that is not. */
async function checkHost(url: URL, guard: AddressGuard): Promise<void> {
  const ip = parseIpLiteral(url.hostname);
  if (!ip) {
    await resolveAllowed(url.hostname, guard);
    return;
  }
  const address = ip.toString();
  const refusal = refusedAs(address, guard);
  if (refusal) throw new WebFetchRefusal(`${address} is ${refusal}`);
}

function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function get(url: URL, guard: AddressGuard, signal: AbortSignal): Promise<IncomingMessage> {
  const tls = url.protocol === 'https:';
  const defaultPort = tls ? 443 : 80;
  const port = url.port ? Number(url.port) : defaultPort;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        defaultPort,
        path: `${url.pathname}${url.search}`,
        headers: { 'user-agent': USER_AGENT, accept: ACCEPT, 'accept-encoding': 'gzip, deflate, br' },
        signal,
        createConnection: guardedConnection({ hostname, port, tls }, guard, signal),
      },
      resolve,
    );
    // Stays on while the body is read: a later error then rejects nothing, and is not unhandled.
    req.on('error', reject);
    req.end();
  });
}

async function readPage(response: IncomingMessage, url: URL, limits: FetchLimits): Promise<FetchedPage> {
  const status = response.statusCode ?? 0;
  const contentType = response.headers['content-type'] ?? null;
  const mime = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  // Binary bodies are not read at all: the model gets the type and can say what it could not read.
  if (mime && !isTextType(mime)) {
    response.destroy();
    throw new WebFetchRefusal(`the response (status ${status}) is ${mime}, not text; web_fetch returns text only`);
  }
  const { bytes, cut } = await readCapped(response, limits.maxBytes);
  if (!mime && bytes.subarray(0, 1024).includes(0)) {
    throw new WebFetchRefusal(`the response (status ${status}) has no content type and a binary body`);
  }
  const text = decode(bytes, charsetOf(contentType), cut);
  const content = clip(text, limits.maxChars);
  return {
    content,
    truncated: cut || content.length < text.length,
    status,
    statusText: response.statusMessage ?? '',
    contentType,
    url: url.href,
    ok: status >= 200 && status < 300,
  };
}

function isTextType(mime: string): boolean {
  return mime.startsWith('text/') || TEXT_TYPES.has(mime) || mime.endsWith('+json') || mime.endsWith('+xml');
}

/** Reads at most `maxBytes` of the decompressed body, then stops reading and closes the connection. */
async function readCapped(response: IncomingMessage, maxBytes: number): Promise<{ bytes: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of decompressed(response)) {
      const buffer = chunk as Buffer;
      if (buffer.length > maxBytes - size) {
        chunks.push(buffer.subarray(0, maxBytes - size));
        return { bytes: Buffer.concat(chunks), cut: true };
      }
      chunks.push(buffer);
      size += buffer.length;
    }
    return { bytes: Buffer.concat(chunks), cut: false };
  } finally {
    response.destroy();
  }
}

function decompressed(response: IncomingMessage): Readable {
  const encoding = (response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  // Errors reach the reader through the last stream, which pipeline destroys with them.
  const ignore = (): void => {};
  switch (encoding) {
    case 'identity':
    case '':
      return response;
    case 'gzip':
    case 'x-gzip':
      return pipeline(response, createGunzip(), ignore);
    case 'deflate':
      return pipeline(response, createInflate(), ignore);
    case 'br':
      return pipeline(response, createBrotliDecompress(), ignore);
    default:
      throw new WebFetchRefusal(`the response has content encoding "${encoding}", which web_fetch cannot decode`);
  }
}

function charsetOf(contentType: string | null): string {
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
}

function decode(bytes: Buffer, charset: string, cut: boolean): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    // An unknown charset label is read as UTF-8: readable text beats no text.
    decoder = new TextDecoder('utf-8');
  }
  // A cut body may end inside a multi-byte character; stream mode leaves that part out.
  return decoder.decode(bytes, { stream: cut });
}

function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const last = text.charCodeAt(maxChars - 1);
  // Never end on the first half of a surrogate pair.
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars);
}
