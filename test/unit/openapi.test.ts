/**
 * The OpenAPI document lists exactly the routes the server serves, and its request bodies are the
 * schemas the routes check: a body the document shows is one the route takes.
 */
import { describe, expect, it } from 'vitest';
import { createServerApp } from '../../src/server/index.js';
import { API_ROUTES, openApiDocument } from '../../src/server/openapi.js';
import type { AgentClient } from '../../src/client/index.js';

describe('the OpenAPI document', () => {
  it('lists every route the app serves, and no other', () => {
    const app = createServerApp({ namespace: 'default' } as unknown as AgentClient, { allowedHosts: ['localhost'] });
    const served = app.routes
      .filter((r) => r.method === 'GET' || r.method === 'POST' || r.method === 'DELETE')
      .map((r) => `${r.method.toLowerCase()} ${r.path}`);
    const listed = API_ROUTES.map((r) => `${r.method} ${r.path}`);
    expect([...new Set(served)].sort()).toEqual([...listed].sort());
  });

  it('is OpenAPI 3.1 with the routes’ own body schemas, and the package version', async () => {
    const doc = openApiDocument() as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
    };
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(version);
    const approve = doc.paths['/runs/{runId}/approve']!.post!.requestBody!.content['application/json']!.schema;
    expect(approve).toMatchObject({
      type: 'object',
      required: ['fingerprint'],
      additionalProperties: false,
      properties: { fingerprint: { type: 'string', maxLength: 128 } },
    });
  });
});
