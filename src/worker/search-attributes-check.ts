/**
 * The check a worker makes of its namespace before it takes runs: every search attribute runs write is
 * registered with its type. A run on a namespace without one would fail the workflow task that writes
 * it, again and again (a wedged run); a worker refusing to start says what to create instead.
 */
import proto from '@temporalio/proto';
import { Runtime } from '@temporalio/worker';
import { SearchAttributesMissingError } from '../errors.js';
import { missingSearchAttributes } from '../protocol/search-attributes.js';

/** The operator service of a client `Connection` or a worker's `NativeConnection`. */
interface OperatorService {
  listSearchAttributes(request: { namespace: string }): Promise<{
    customAttributes?: Record<string, proto.temporal.api.enums.v1.IndexedValueType> | null;
  }>;
}

const { IndexedValueType } = proto.temporal.api.enums.v1;

/** A type as `temporal operator search-attribute create --type` names it (`..._KEYWORD_LIST`: `KeywordList`). */
function typeName(type: proto.temporal.api.enums.v1.IndexedValueType): string {
  const words = (IndexedValueType[type] ?? 'UNSPECIFIED')
    .replace(/^INDEXED_VALUE_TYPE_/, '')
    .toLowerCase()
    .split('_');
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

/** gRPC codes of a server that will not list search attributes to this caller (an API key may lack the right). */
const CANNOT_LIST = new Set<unknown>([7 /* PERMISSION_DENIED */, 12 /* UNIMPLEMENTED */]);

/**
 * Throws {@link SearchAttributesMissingError} when `namespace` lacks a search attribute runs write.
 * Returns `unchecked` when the server would not list them to this caller, and `warn` has said so.
 */
export async function checkSearchAttributes(
  operator: OperatorService,
  namespace: string,
  warn: (message: string) => void,
): Promise<'checked' | 'unchecked'> {
  let customAttributes;
  try {
    ({ customAttributes } = await operator.listSearchAttributes({ namespace }));
  } catch (err) {
    if (!CANNOT_LIST.has((err as { code?: unknown }).code)) throw err;
    warn(
      `cannot list the search attributes of namespace "${namespace}" (${(err as Error).message}): the worker ` +
        'starts unchecked; runs fail their workflow tasks if one is missing (docs/guides/cluster.md)',
    );
    return 'unchecked';
  }
  const registered = Object.fromEntries(
    Object.entries(customAttributes ?? {}).map(([name, type]) => [name, typeName(type)]),
  );
  const missing = missingSearchAttributes(registered);
  if (missing.length > 0) throw new SearchAttributesMissingError(namespace, missing);
  return 'checked';
}

/** A worker's warning, through Temporal's runtime logger (the worker's own log). */
export function warnWorker(message: string): void {
  Runtime.instance().logger.warn(message);
}
