/** The built-in `web_fetch` tool: a public web page's text for the model, hardened against SSRF. */
import { builtinTool } from './builtin-names.js';
import { z } from 'zod';
import { errorMessage } from '../../errors.js';
import { createTool } from '../create-tool.js';
import { fetchPage, type FetchLimits } from './fetch-page.js';
import { systemResolver, type Resolver } from './guarded-connection.js';
import { isPublicAddress } from './ip-address.js';

/** The limits of `web_fetch`. */
export const WEB_FETCH_LIMITS: Readonly<FetchLimits> = {
  timeoutMs: 15_000,
  maxRedirects: 5,
  maxChars: 100_000,
  // Enough bytes for 100,000 characters in any charset (at most 4 bytes each); the rest is never read.
  maxBytes: 400_000,
};

export const WebFetchInputSchema = z.object({
  url: z.string().describe('The http or https URL of a public web page'),
});

export const WebFetchOutputSchema = z.union([
  z.object({
    content: z.string().describe('The text of the response, at most 100,000 characters'),
    truncated: z.boolean().describe('True when the response was longer than what content holds'),
    status: z.number().int(),
    statusText: z.string(),
    contentType: z.string().nullable(),
    url: z.string().describe('The URL fetched at last, after redirects'),
    ok: z.boolean().describe('True for a 2xx status'),
  }),
  z.object({
    isError: z.literal(true),
    content: z.string().describe('Why nothing was fetched, in one line'),
  }),
]);

/** What {@link createWebFetchTool} takes. Every option but `timeoutMs` loosens or bends the SSRF guard. */
export interface WebFetchToolOptions {
  /**
   * Which addresses may be connected to; default {@link isPublicAddress}. It is checked on every address
   * a name resolves to and on the address each connection actually reaches. For tests, whose servers
   * all listen on addresses the strict policy refuses.
   */
  isAllowedAddress?: (address: string) => boolean;
  /** How host names are resolved; default the operating system's resolver. For tests. */
  resolve?: Resolver;
  /** The time for the whole fetch, redirects and body included; default 15,000 ms. */
  timeoutMs?: number;
}

/**
 * Builds a `web_fetch` tool with its own address policy, resolver or timeout. Agents should use
 * {@link webFetchTool}, which has the strict policy; this factory is for tests, and is not exported
 * from the package.
 */
export function createWebFetchTool(options: WebFetchToolOptions = {}) {
  const guard = {
    isAllowedAddress: options.isAllowedAddress ?? isPublicAddress,
    resolve: options.resolve ?? systemResolver,
  };
  const limits: FetchLimits = { ...WEB_FETCH_LIMITS, timeoutMs: options.timeoutMs ?? WEB_FETCH_LIMITS.timeoutMs };
  return createTool({
    id: 'web_fetch',
    description:
      'Fetches a public web page (http or https) and returns its text content, at most 100,000 characters. ' +
      'Private, local and other non-public addresses are refused.',
    inputSchema: WebFetchInputSchema,
    outputSchema: WebFetchOutputSchema,
    // The fetch ends by its own timeout; this only bounds a worker that hangs.
    activity: { startToCloseTimeout: limits.timeoutMs + 15_000 },
    execute: async ({ url }, { abortSignal }) => {
      try {
        return await fetchPage(url, guard, limits, abortSignal);
      } catch (err) {
        // The model reads the reason; one line keeps it one fact.
        return { isError: true as const, content: errorMessage(err).replace(/\s+/g, ' ').trim() };
      }
    },
  });
}

/**
 * `web_fetch`: fetches an http or https URL and returns `content` (text, at most 100,000 characters),
 * `truncated`, `status`, `statusText`, `contentType`, the final `url` and `ok`. It refuses, before
 * connecting and again after each redirect (at most 5), every address that is not public: loopback,
 * private, link-local, CGNAT, multicast, reserved, unspecified, unique local and the IPv6 forms that
 * embed IPv4, whether written as a literal in any form or resolved from a name, and it checks the address
 * each connection actually reaches. URLs with credentials and non-text responses are refused. It never
 * throws: a failure is `{ isError: true, content: reason }`. 15 s timeout.
 */
export const webFetchTool = builtinTool(createWebFetchTool());
