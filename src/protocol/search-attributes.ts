/**
 * The search attributes a run carries, defined once for the workflow (which updates them) and the
 * client (which sets them at start and queries them). A Temporal server must have them registered:
 * `temporal-dev.sh` does it for the dev server, docs/temporal-cluster.md says how for a cluster.
 */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

export const AgentIdKey = defineSearchAttributeKey('AgentId', SearchAttributeType.KEYWORD);
/** `running`, `suspended`, `completed` or `failed`. */
export const AgentStatusKey = defineSearchAttributeKey('AgentStatus', SearchAttributeType.KEYWORD);
export const AgentThreadIdKey = defineSearchAttributeKey('AgentThreadId', SearchAttributeType.KEYWORD);
export const AgentResourceIdKey = defineSearchAttributeKey('AgentResourceId', SearchAttributeType.KEYWORD);
/** The ids of the tool calls the run waits on. */
export const AgentPendingToolCallsKey = defineSearchAttributeKey(
  'AgentPendingToolCalls',
  SearchAttributeType.KEYWORD_LIST,
);

/**
 * Every search attribute runs and threads write, with its type as `temporal operator search-attribute
 * create --type` names it: a namespace without one would fail the workflow task that writes it.
 */
export const RUN_SEARCH_ATTRIBUTE_TYPES = {
  [AgentIdKey.name]: 'Keyword',
  [AgentStatusKey.name]: 'Keyword',
  [AgentThreadIdKey.name]: 'Keyword',
  [AgentResourceIdKey.name]: 'Keyword',
  [AgentPendingToolCallsKey.name]: 'KeywordList',
} as const;

/** The attributes runs need that `registered` (name to type) lacks or holds with another type. */
export function missingSearchAttributes(
  registered: Readonly<Record<string, string>>,
): Array<{ name: string; type: string }> {
  return Object.entries(RUN_SEARCH_ATTRIBUTE_TYPES)
    .filter(([name, type]) => registered[name] !== type)
    .map(([name, type]) => ({ name, type }));
}

/** The search attributes a run starts with: its agent, `running`, and its thread and resource if any. */
export function startSearchAttributes(
  agentId: string,
  options: { threadId?: string; resourceId?: string },
): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [
    { key: AgentIdKey, value: agentId },
    { key: AgentStatusKey, value: 'running' },
  ];
  if (options.threadId) pairs.push({ key: AgentThreadIdKey, value: options.threadId });
  if (options.resourceId) pairs.push({ key: AgentResourceIdKey, value: options.resourceId });
  return pairs;
}

/** The search attributes of a thread workflow: visibility lists the threads of a resource by them. */
export function threadSearchAttributes(options: { threadId: string; resourceId?: string }): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [{ key: AgentThreadIdKey, value: options.threadId }];
  if (options.resourceId) pairs.push({ key: AgentResourceIdKey, value: options.resourceId });
  return pairs;
}
