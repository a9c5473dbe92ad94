/**
 * Payload-store references that no driver is ever asked about. The SDK's worker resolves every
 * reference in a workflow activation before workflow code runs, and it reads the reference itself
 * (its JSON, its driver's name) before any driver is called: a reference that is not JSON, names no
 * driver or names one the worker lacks throws there, which fails the workflow task on every attempt
 * (a raw signal could wedge a run so). Nothing in the SDK's options reaches that step, so the step is
 * wrapped here: for the external storages a worker of ours registers (and no other: a client still
 * throws), such a reference is replaced by the payload that stands for an undecodable one, and the
 * rest are resolved as before.
 *
 * The wrap is of `ExternalStorageRunner.prototype.retrieve` in the copy of `@temporalio/common` the
 * worker package loads; test/integration/undecodable-payloads.test.ts fails if an SDK upgrade moves it.
 */
import { createRequire } from 'node:module';
import type { ExternalStorage, Payload } from '@temporalio/common';

interface Runner {
  externalStorage: ExternalStorage;
}
type Retrieve = (this: Runner, payloads: Payload[], options?: unknown) => Promise<Payload[]>;

interface Helpers {
  isReferencePayload(payload: Payload): boolean;
  decodeReferencePayload(payload: Payload): { driverName: string };
}

/** What a guarded storage resolves a reference it cannot hand to a driver to. */
export interface ReferenceGuard {
  /** The payload that stands for a reference the storage cannot resolve, saying why. */
  refused: (reason: string) => Payload;
  /** Why a reference to a driver the storage does not have cannot be resolved. */
  unknownDriver: (name: string) => string;
}

const guarded = new WeakMap<ExternalStorage, ReferenceGuard>();
let installed = false;

/**
 * From now on, a reference that `storage` cannot hand to a driver (not JSON, no driver, a driver it
 * does not have) is resolved to `guard.refused(<why>)` instead of throwing.
 */
export function guardReferences(storage: ExternalStorage, guard: ReferenceGuard): void {
  guarded.set(storage, guard);
  if (installed) return;
  // The modules the worker itself loads (a project may hold more than one copy of @temporalio/common).
  const fromWorker = createRequire(createRequire(import.meta.url).resolve('@temporalio/worker'));
  const runnerModule = fromWorker('@temporalio/common/lib/internal-non-workflow/external-storage-runner') as {
    ExternalStorageRunner?: { prototype?: { retrieve: Retrieve } };
  };
  const helpers = fromWorker('@temporalio/common/lib/internal-non-workflow/extstore-helpers') as Helpers;
  const runner = runnerModule.ExternalStorageRunner?.prototype;
  if (typeof runner?.retrieve !== 'function') {
    throw new Error(
      '@temporalio/common has no ExternalStorageRunner.retrieve: this version of durable-agents does not ' +
        'support the installed Temporal SDK (see package.json for the version it is tested with)',
    );
  }
  const original = runner.retrieve;
  runner.retrieve = async function retrieve(this: Runner, payloads: Payload[], options?: unknown) {
    const guard = guarded.get(this.externalStorage);
    if (!guard) return original.call(this, payloads, options);
    const out = [...payloads];
    const passed: number[] = [];
    payloads.forEach((payload, i) => {
      if (!helpers.isReferencePayload(payload)) return;
      const problem = referenceProblem(helpers, this.externalStorage, guard, payload);
      if (problem) out[i] = guard.refused(problem);
      else passed.push(i);
    });
    if (passed.length === 0) return out;
    const resolved = await original.call(
      this,
      passed.map((i) => payloads[i]!),
      options,
    );
    passed.forEach((i, j) => (out[i] = resolved[j]!));
    return out;
  };
  installed = true;
}

function referenceProblem(
  helpers: Helpers,
  storage: ExternalStorage,
  guard: ReferenceGuard,
  payload: Payload,
): string | undefined {
  let driverName: string;
  try {
    driverName = helpers.decodeReferencePayload(payload).driverName;
  } catch {
    return 'a malformed payload-store reference';
  }
  return storage.getDriver(driverName) ? undefined : guard.unknownDriver(driverName.slice(0, 64));
}
