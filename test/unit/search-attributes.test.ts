import { describe, expect, it } from 'vitest';
import { missingSearchAttributes, RUN_SEARCH_ATTRIBUTE_TYPES } from '../../src/protocol/search-attributes.js';
import { RUN_SEARCH_ATTRIBUTES } from '../../src/testing/index.js';
import { SearchAttributesMissingError } from '../../src/index.js';
import { checkSearchAttributes } from '../../src/worker/search-attributes-check.js';

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
    const failing = (code: number) => ({
      listSearchAttributes: () => Promise.reject(Object.assign(new Error(`code ${code}`), { code })),
    });
    const warnings: string[] = [];
    const warn = (m: string) => void warnings.push(m);
    await expect(checkSearchAttributes(failing(7), 'ns', warn)).resolves.toBe('unchecked');
    expect(warnings).toEqual([expect.stringContaining('cannot list the search attributes of namespace "ns" (code 7)')]);
    await expect(checkSearchAttributes(failing(14), 'ns', warn)).rejects.toThrow('code 14');
    const lacking = { listSearchAttributes: async () => ({ customAttributes: { AgentId: 2 } }) };
    await expect(checkSearchAttributes(lacking, 'ns', warn)).rejects.toBeInstanceOf(SearchAttributesMissingError);
  });
});
