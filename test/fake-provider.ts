/**
 * What the local provider servers (openai-server.ts, anthropic-server.ts, google-server.ts) share: the
 * requests they record, the answers tests queue, and the handle a test holds. Each server speaks its own
 * wire format; this is only the bookkeeping around it.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as a server recorded it. */
export interface Recorded<Body> {
  /** When it arrived (`Date.now()`). */
  at: number;
  path: string;
  /** The key the provider's package sent (its own header). */
  auth: string | undefined;
  body: Body;
}

/** A running fake provider, as a test holds it. */
export interface FakeProvider<Body, Answer> {
  /** `http://127.0.0.1:<port>` and the API's path prefix, for the provider's base URL. */
  baseURL: string;
  requests: Recorded<Body>[];
  /** Requests that found no answer. */
  unexpected: Recorded<Body>[];
  /** Queues answers, one per coming request. */
  answer(...answers: Answer[]): void;
  /** How many queued answers no request has taken yet. */
  pending(): number;
  /** Clears the recorded requests and the queue; returns the unexpected requests and unused answers. */
  reset(): { unexpected: Recorded<Body>[]; pending: Answer[] };
  /** Points this process's environment for the provider (its key and base URL) at the server. */
  useInThisProcess(apiKey?: string): void;
  close(): Promise<void>;
}

/** The records and the queue of one server. */
export class FakeLedger<Body, Answer> {
  readonly requests: Recorded<Body>[] = [];
  readonly unexpected: Recorded<Body>[] = [];
  readonly queue: Answer[] = [];

  constructor(private readonly respond?: (request: Body, index: number) => Answer | undefined) {}

  /** Records a request; returns its index. */
  record(request: Recorded<Body>): number {
    return this.requests.push(request) - 1;
  }

  /** The next queued answer, else the one `respond` gives; a request with none is recorded as unexpected. */
  take(request: Recorded<Body>, index: number): Answer | undefined {
    const next = this.queue.shift() ?? this.respond?.(request.body, index);
    if (!next) this.unexpected.push(request);
    return next;
  }
}

export async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

/** Listens on a free local port and returns the test's handle on `server`. */
export async function listenFake<Body, Answer>(
  server: Server,
  prefix: string,
  ledger: FakeLedger<Body, Answer>,
  useInThisProcess: (baseURL: string, apiKey?: string) => void,
): Promise<FakeProvider<Body, Answer>> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
  return {
    baseURL,
    requests: ledger.requests,
    unexpected: ledger.unexpected,
    answer: (...answers) => void ledger.queue.push(...answers),
    pending: () => ledger.queue.length,
    reset: () => {
      ledger.requests.length = 0;
      return { unexpected: ledger.unexpected.splice(0), pending: ledger.queue.splice(0) };
    },
    useInThisProcess: (apiKey) => useInThisProcess(baseURL, apiKey),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A request it hangs on would otherwise hold the server open.
        server.closeAllConnections();
      }),
  };
}
