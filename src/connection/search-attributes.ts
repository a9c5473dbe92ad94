/**
 * The check a process makes of its namespace before it works there (a worker before it takes runs,
 * `agentctl` and the HTTP server before they list runs): every search attribute runs write and lists
 * read is registered with its type. A run on a namespace without one would fail the workflow task
 * that writes it, again and again (a wedged run), and a list would be refused. Where the caller may,
 * and asks to, the missing attributes are created instead.
 */
import proto from '@temporalio/proto';
import { SearchAttributesMissingError } from '../errors.js';
import { missingSearchAttributes, RUN_SEARCH_ATTRIBUTE_TYPES } from '../protocol/search-attributes.js';

type IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;

/** The operator service of a client `Connection` or a worker's `NativeConnection`. */
export interface OperatorService {
  listSearchAttributes(request: { namespace: string }): Promise<{
    customAttributes?: Record<string, IndexedValueType> | null;
  }>;
  addSearchAttributes(request: {
    namespace: string;
    searchAttributes: Record<string, IndexedValueType>;
  }): Promise<unknown>;
}

const { IndexedValueType } = proto.temporal.api.enums.v1;

/** A type as `temporal operator search-attribute create --type` names it (`..._KEYWORD_LIST`: `KeywordList`). */
function typeName(type: IndexedValueType): string {
  const words = (IndexedValueType[type] ?? 'UNSPECIFIED')
    .replace(/^INDEXED_VALUE_TYPE_/, '')
    .toLowerCase()
    .split('_');
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

/** The enum value of a type name (`KeywordList`: `INDEXED_VALUE_TYPE_KEYWORD_LIST`). */
function typeValue(name: string): IndexedValueType {
  const key = `INDEXED_VALUE_TYPE_${name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
  return IndexedValueType[key as keyof typeof IndexedValueType] as IndexedValueType;
}

/** Every run search attribute with its type, as `OperatorService.addSearchAttributes` takes them. */
export function runSearchAttributeValues(): Record<string, IndexedValueType> {
  return Object.fromEntries(Object.entries(RUN_SEARCH_ATTRIBUTE_TYPES).map(([name, type]) => [name, typeValue(type)]));
}

/**
 * gRPC codes of a server that will not do this for this caller: an API key may lack the right, and
 * Temporal Cloud creates search attributes through its own API, not the operator service.
 */
const NOT_ALLOWED = new Set<unknown>([7 /* PERMISSION_DENIED */, 12 /* UNIMPLEMENTED */]);

export interface SearchAttributeCheck {
  /** Says that the namespace could not be checked (the process goes on unchecked). */
  warn: (message: string) => void;
  /** Create the missing attributes rather than refuse, where the caller's credentials allow it. */
  create?: boolean | undefined;
  /** Who checks, for the warning: `the worker`, `agentctl`, `the server`. */
  who: string;
}

/**
 * Throws {@link SearchAttributesMissingError} when `namespace` lacks a search attribute runs need (or,
 * with `create`, creates them first; one held with another type cannot be created and is refused).
 * Returns `unchecked` when the server would not list them to this caller, and `warn` has said so.
 */
export async function checkSearchAttributes(
  operator: OperatorService,
  namespace: string,
  { warn, create, who }: SearchAttributeCheck,
): Promise<'checked' | 'created' | 'unchecked'> {
  let customAttributes;
  try {
    ({ customAttributes } = await operator.listSearchAttributes({ namespace }));
  } catch (err) {
    if (!NOT_ALLOWED.has((err as { code?: unknown }).code)) throw err;
    warn(
      `cannot list the search attributes of namespace "${namespace}" (${(err as Error).message}): ${who} ` +
        'starts unchecked; runs fail their workflow tasks if one is missing (docs/guides/cluster.md)',
    );
    return 'unchecked';
  }
  const registered = Object.fromEntries(
    Object.entries(customAttributes ?? {}).map(([name, type]) => [name, typeName(type)]),
  );
  const missing = missingSearchAttributes(registered);
  if (missing.length === 0) return 'checked';
  // An attribute of the same name and another type cannot be created over: an operator must decide.
  if (!create) throw new SearchAttributesMissingError(namespace, missing);
  const clashes = missing.filter(({ name }) => name in registered);
  if (clashes.length > 0) {
    const held = clashes.map(({ name }) => `${name} exists as ${registered[name]}`).join(', ');
    throw new SearchAttributesMissingError(namespace, missing, `${held}; an operator must remove it first`);
  }
  try {
    await operator.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map(({ name, type }) => [name, typeValue(type)])),
    });
  } catch (err) {
    if (!NOT_ALLOWED.has((err as { code?: unknown }).code)) throw err;
    throw new SearchAttributesMissingError(
      namespace,
      missing,
      `these credentials may not create them (${(err as Error).message})`,
    );
  }
  return 'created';
}

/** The environment variable that asks every process to create the missing search attributes. */
export const CREATE_SEARCH_ATTRIBUTES_ENV = 'DURABLE_AGENTS_CREATE_SEARCH_ATTRIBUTES';

/**
 * Whether to create missing search attributes: `given` when set, else `DURABLE_AGENTS_CREATE_SEARCH_ATTRIBUTES`
 * (`true`/`1` or `false`/`0`; anything else is refused, never read as no).
 */
export function createSearchAttributesSetting(given: boolean | undefined, where: string): boolean {
  if (given !== undefined) {
    if (typeof given !== 'boolean') {
      throw new TypeError(`${where}: createSearchAttributes is true or false, not ${JSON.stringify(given)}`);
    }
    return given;
  }
  const raw = process.env[CREATE_SEARCH_ATTRIBUTES_ENV]?.trim().toLowerCase();
  if (!raw) return false;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new TypeError(
    `${where}: ${CREATE_SEARCH_ATTRIBUTES_ENV} is true, 1, false or 0, not ${JSON.stringify(raw.slice(0, 40))}`,
  );
}
