import { describe, expect, it } from 'vitest';
import { pageSizeOf, pageTokenBytes, pageTokenRefusal, pageTokenText } from '../../src/client/runs/page-token.js';
import { InvalidInputError } from '../../src/errors.js';

const QUERY = "WorkflowType = 'agentRun' AND AgentResourceId = 'acme'";
const serverToken = Buffer.from('{"LastStartTime":"2026-12-07T03:00:00Z","LastRunID":"r-1"}');

describe('page tokens', () => {
  it("carry the server's token back unchanged for the same query", () => {
    const text = pageTokenText(serverToken, QUERY)!;
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(pageTokenBytes(text, QUERY)).equals(serverToken)).toBe(true);
  });

  it('say there is no next page when the server gives no token', () => {
    expect(pageTokenText(Buffer.alloc(0), QUERY)).toBeUndefined();
    expect(pageTokenText(undefined, QUERY)).toBeUndefined();
    expect(pageTokenBytes(undefined, QUERY)).toHaveLength(0);
  });

  it('refuse a token of another query, a short one, and text that is not base64url', () => {
    const text = pageTokenText(serverToken, QUERY)!;
    const otherTenant = QUERY.replace('acme', 'globex');
    expect(() => pageTokenBytes(text, otherTenant)).toThrow(/pageToken: not the token of a page of this list/);
    expect(() => pageTokenBytes('AAAA', QUERY)).toThrow(InvalidInputError);
    expect(() => pageTokenBytes('a b', QUERY)).toThrow(/pageToken: .*base64url/);
    expect(() => pageTokenBytes('A'.repeat(4097), QUERY)).toThrow(InvalidInputError);
    expect(() => pageTokenBytes(42, QUERY)).toThrow(InvalidInputError);
  });

  it('take page sizes from 1 to 1,000, 100 by default', () => {
    expect(pageSizeOf(undefined)).toBe(100);
    expect(pageSizeOf(1000)).toBe(1000);
    for (const bad of [0, 1001, 1.5, '10', -1]) expect(() => pageSizeOf(bad)).toThrow(/pageSize/);
  });

  it("blame the token for the server's refusal only when a token was sent", () => {
    const unreadable = Object.assign(new Error('bad token'), {
      code: 3,
      details: 'unable to deserialize',
      metadata: {},
    });
    expect(pageTokenRefusal(unreadable, serverToken)?.message).toMatch(
      /pageToken: Temporal could not read the list with this token \(INVALID_ARGUMENT\)/,
    );
    expect(pageTokenRefusal(unreadable, Buffer.alloc(0))).toBeUndefined();
    const unavailable = Object.assign(new Error('down'), { code: 14, details: 'unavailable', metadata: {} });
    expect(pageTokenRefusal(unavailable, serverToken)).toBeUndefined();
  });
});
