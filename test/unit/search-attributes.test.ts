import { describe, expect, it } from 'vitest';
import { missingSearchAttributes, RUN_SEARCH_ATTRIBUTE_TYPES } from '../../src/protocol/search-attributes.js';
import { RUN_SEARCH_ATTRIBUTES } from '../../src/testing/index.js';
import { SearchAttributesMissingError } from '../../src/index.js';
import { checkSearchAttributes, createSearchAttributesSetting } from '../../src/connection/search-attributes.js';

describe('the search attributes a namespace needs', () => {
  it('are missing when absent or of another type, and complete when all are there', () => {
    expect(missingSearchAttributes({})).toHaveLength(5);
    expect(
      missingSearchAttributes({ ...RUN_SEARCH_ATTRIBUTE_TYPES, AgentStatus: 'Text', AgentPendingToolCalls: 'Keyword' }),
    ).toEqual([
      { name: 'AgentStatus', type: 'Keyword' },
      { name: 'AgentPendingToolCalls', type: 'KeywordList' },
    ]);
    expect(missingSearchAttributes({ ...RUN_SEARCH_ATTRIBUTE_TYPES, Other: 'Int' })).toEqual([]);
  });

  it('are the ones the test kit registers on its dev server', () => {
    expect(RUN_SEARCH_ATTRIBUTES).toEqual([
      'AgentId=Keyword',
      'AgentStatus=Keyword',
      'AgentThreadId=Keyword',
      'AgentResourceId=Keyword',
      'AgentPendingToolCalls=KeywordList',
    ]);
  });

  it('are checked by a worker, which starts unchecked only where the server will not list them', async () => {
    const refuse = (code: number) => () => Promise.reject(Object.assign(new Error(`code ${code}`), { code }));
    const nothingAdded = () => Promise.reject(new Error('nothing may be added here'));
    const failing = (code: number) => ({ listSearchAttributes: refuse(code), addSearchAttributes: nothingAdded });
    const warnings: string[] = [];
    const check = { warn: (m: string) => void warnings.push(m), who: 'the worker' };
    await expect(checkSearchAttributes(failing(7), 'ns', check)).resolves.toBe('unchecked');
    expect(warnings).toEqual([
      expect.stringContaining(
        'cannot list the search attributes of namespace "ns" (code 7): the worker starts unchecked',
      ),
    ]);
    await expect(checkSearchAttributes(failing(14), 'ns', check)).rejects.toThrow('code 14');
    const lacking = {
      listSearchAttributes: async () => ({ customAttributes: { AgentId: 2 } }),
      addSearchAttributes: nothingAdded,
    };
    await expect(checkSearchAttributes(lacking, 'ns', check)).rejects.toBeInstanceOf(SearchAttributesMissingError);
  });

  it('are created when asked, with their types, but never over one of another type', async () => {
    const added: unknown[] = [];
    const operator = (registered: Record<string, number>, add = async (r: unknown) => void added.push(r)) => ({
      listSearchAttributes: async () => ({ customAttributes: registered }),
      addSearchAttributes: add,
    });
    const check = { warn: () => undefined, who: 'the worker', create: true };
    await expect(checkSearchAttributes(operator({ AgentId: 2 }), 'ns', check)).resolves.toBe('created');
    expect(added).toEqual([
      {
        namespace: 'ns',
        searchAttributes: { AgentStatus: 2, AgentThreadId: 2, AgentResourceId: 2, AgentPendingToolCalls: 7 },
      },
    ]);
    // AgentStatus held as Text: creating cannot fix it, and nothing is added.
    added.length = 0;
    await expect(checkSearchAttributes(operator({ AgentStatus: 1 }), 'ns', check)).rejects.toThrow(
      /lacks the search attributes agent runs need: AgentId \(Keyword\), AgentStatus \(Keyword\).*; they were not created: AgentStatus exists as Text; an operator must remove it first\./,
    );
    expect(added).toEqual([]);
    const denied = operator({}, () => Promise.reject(Object.assign(new Error('Request unauthorized.'), { code: 7 })));
    await expect(checkSearchAttributes(denied, 'ns', check)).rejects.toThrow(
      'they were not created: these credentials may not create them (Request unauthorized.)',
    );
  });

  it('are asked to be created by the environment only with a value it knows', () => {
    const env = process.env.DURABLE_AGENTS_CREATE_SEARCH_ATTRIBUTES;
    try {
      delete process.env.DURABLE_AGENTS_CREATE_SEARCH_ATTRIBUTES;
      expect(createSearchAttributesSetting(undefined, 'w')).toBe(false);
      process.env.DURABLE_AGENTS_CREATE_SEARCH_ATTRIBUTES = 'TRUE';
      expect(createSearchAttributesSetting(undefined, 'w')).toBe(true);
      expect(createSearchAttributesSetting(false, 'w')).toBe(false);
      process.env.DURABLE_AGENTS_CREATE_SEARCH_ATTRIBUTES = 'yes';
      expect(() => createSearchAttributesSetting(undefined, 'w')).toThrow(
        'w: DURABLE_AGENTS_CREATE_SEARCH_ATTRIBUTES is true, 1, false or 0, not "yes"',
      );
      expect(() => createSearchAttributesSetting('yes' as never, 'w')).toThrow(
        'w: createSearchAttributes is true or false, not "yes"',
      );
    } finally {
      if (env === undefined) delete process.env.DURABLE_AGENTS_CREATE_SEARCH_ATTRIBUTES;
      else process.env.DURABLE_AGENTS_CREATE_SEARCH_ATTRIBUTES = env;
    }
  });
});
