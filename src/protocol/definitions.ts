/**
 * The signal, query and update definitions of the protocol, made here rather than by
 * `@temporalio/workflow`'s `defineSignal`, `defineQuery` and `defineUpdate`: a client that signals or
 * queries a run would load the whole workflow package (and its sandbox runtime) for three object
 * literals. The objects are those functions' own, `{ type, name }`, so that the workflow's `setHandler`
 * takes them as it takes the SDK's. Sandbox-safe: types only from `@temporalio/common`.
 */
import type { QueryDefinition, SignalDefinition, UpdateDefinition } from '@temporalio/common';

/** A signal of the protocol, as `defineSignal(name)` makes it. */
export function defineSignal<Args extends unknown[] = [], Name extends string = string>(
  name: Name,
): SignalDefinition<Args, Name> {
  return { type: 'signal', name } as SignalDefinition<Args, Name>;
}

/** A query of the protocol, as `defineQuery(name)` makes it. */
export function defineQuery<Ret, Args extends unknown[] = [], Name extends string = string>(
  name: Name,
): QueryDefinition<Ret, Args, Name> {
  return { type: 'query', name } as QueryDefinition<Ret, Args, Name>;
}

/** An update of the protocol, as `defineUpdate(name)` makes it. */
export function defineUpdate<Ret, Args extends unknown[] = [], Name extends string = string>(
  name: Name,
): UpdateDefinition<Ret, Args, Name> {
  return { type: 'update', name } as UpdateDefinition<Ret, Args, Name>;
}
