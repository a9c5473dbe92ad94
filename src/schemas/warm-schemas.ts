/**
 * Readies zod schemas to be shared, frozen, by every run of a workflow bundle.
 *
 * Temporal's reusable V8 context instantiates every module of the bundle once per run, unless the
 * module is preloaded (`preloadModules`): then one instance serves every run, and the SDK deep-freezes
 * it so that a run cannot change it for the next. A run's schemas are over a thousand zod objects,
 * about 2 MiB a run, so sharing them is most of a waiting run's memory. But a zod schema installs some
 * members on first read (its bound methods such as `safeParse`, and derived internals such as
 * `optin`), defining them on itself, rewrites its parse on the first call, and resets its patterns'
 * `lastIndex`, all of which a frozen object refuses. {@link warmSchemas} reads every such member and
 * parses once, while the schemas can still take it, and hands patterns out as fresh copies, so that a
 * frozen schema has nothing left to change. What it installs is derived from the schema's definition
 * alone, the same in every run.
 */

/** Objects the walk has warmed or is warming. */
type Seen = WeakSet<object>;

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** A zod schema: it carries its internals, with its definition, under `_zod`. */
function isSchema(value: object): value is { _zod: { def: unknown } } {
  const internals = (value as { _zod?: unknown })._zod;
  return isObject(internals) && 'def' in internals;
}

function isLazy(schema: { _zod: { def: unknown } }): schema is { _zod: { def: unknown; innerType: unknown } } {
  return isObject(schema._zod.def) && (schema._zod.def as { type?: unknown }).type === 'lazy';
}

/** Reads every accessor that `target` inherits (not Object's own), so that each lazy member installs. */
function readInherited(target: object, seen: Seen): void {
  for (
    let proto = Object.getPrototypeOf(target);
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const key of Reflect.ownKeys(proto)) {
      if (!Object.getOwnPropertyDescriptor(proto, key)?.get) continue;
      let value: unknown;
      try {
        value = (target as Record<PropertyKey, unknown>)[key];
      } catch {
        // A member that cannot be derived (a getter that throws for this kind of schema) installs
        // nothing, so there is nothing for the freeze to refuse.
        continue;
      }
      walk(value, seen);
    }
  }
}

/**
 * Parses once, for what a schema rewrites on its first parse: zod's memoizer wraps a container's parse
 * and, on the first call, puts the plain one back when the schema cannot recurse. The value does not
 * matter; what the parse says of it does not either.
 */
function firstParse(schema: object): void {
  const safeParse = (schema as { safeParse?: unknown }).safeParse;
  if (typeof safeParse !== 'function') return;
  try {
    safeParse.call(schema, undefined);
  } catch {
    // A refinement that cannot take undefined: the wrapper ran before it, which is all this is for.
  }
}

/**
 * Hands out each pattern a schema holds (a `.regex()` check's, a format's) as a fresh copy on every
 * read: a check resets its pattern's `lastIndex` before each test, which a frozen RegExp refuses.
 */
function freshPatterns(target: object): void {
  for (const key of Reflect.ownKeys(target)) {
    const described = Object.getOwnPropertyDescriptor(target, key);
    const pattern: unknown = described?.value;
    if (!(pattern instanceof RegExp) || !described?.configurable) continue;
    const { source, flags } = pattern;
    Object.defineProperty(target, key, {
      configurable: true,
      enumerable: described.enumerable,
      get: () => new RegExp(source, flags),
    });
  }
}

function walk(value: unknown, seen: Seen): void {
  if (!isObject(value) || seen.has(value)) return;
  seen.add(value);
  if (isSchema(value)) {
    readInherited(value, seen);
    readInherited(value._zod, seen);
    firstParse(value);
    freshPatterns(value._zod);
    walk(value._zod.def, seen);
    // A lazy schema's inner schema exists only after the first parse, when the walk has been past its
    // definition already.
    if (isLazy(value)) walk(value._zod.innerType, seen);
    return;
  }
  // Plain data that may hold schemas: a module's exports, a definition, a shape, a list of options.
  if (
    Array.isArray(value) ||
    Object.getPrototypeOf(value) === Object.prototype ||
    Object.getPrototypeOf(value) === null
  ) {
    if (!Array.isArray(value)) freshPatterns(value);
    for (const key of Reflect.ownKeys(value)) {
      try {
        walk((value as Record<PropertyKey, unknown>)[key], seen);
      } catch {
        continue;
      }
    }
  }
}

/**
 * Installs every lazily installed member of each schema reachable from `roots` (module namespaces,
 * schemas, plain objects and arrays holding them, and the schemas inside their definitions), so that
 * the schemas still work once frozen.
 */
export function warmSchemas(...roots: unknown[]): void {
  const seen: Seen = new WeakSet();
  for (const root of roots) walk(root, seen);
}

/**
 * Gives a schema built during a run its own copy of every frozen pattern it holds. zod's format checks
 * (email, date, duration, ipv4, ...) take their pattern from a module-level RegExp, which the bundle
 * shares, frozen, with zod itself; the check resets the pattern's `lastIndex` before each test, which a
 * frozen RegExp refuses with a TypeError. Walks the schema, its checks and the schemas inside its
 * definition, lazy ones included; a schema with no frozen pattern is left as it is.
 */
export function ownPatterns(schema: unknown, seen: Seen = new WeakSet()): void {
  if (!isObject(schema) || seen.has(schema)) return;
  seen.add(schema);
  if (isSchema(schema)) {
    const def = schema._zod.def;
    if (isObject(def)) {
      const pattern = (def as { pattern?: unknown }).pattern;
      if (pattern instanceof RegExp && Object.isFrozen(pattern) && !Object.isFrozen(def)) {
        (def as { pattern: RegExp }).pattern = new RegExp(pattern.source, pattern.flags);
      }
    }
    ownPatterns(def, seen);
    if (isLazy(schema)) ownPatterns(schema._zod.innerType, seen);
    return;
  }
  if (Array.isArray(schema) || Object.getPrototypeOf(schema) === Object.prototype) {
    for (const key of Reflect.ownKeys(schema)) ownPatterns((schema as Record<PropertyKey, unknown>)[key], seen);
  }
}
