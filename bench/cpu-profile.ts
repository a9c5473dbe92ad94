/**
 * Where a worker process's CPU went, from the V8 CPU profiles its threads wrote (`node --cpu-prof`):
 * each sample in a time window put in the first category whose frames it runs under. The workflow
 * thread's categories name the Temporal SDK's own costs (the stack each promise of a workflow records,
 * the sandbox entered for each call into it, the modules instantiated per run) apart from the
 * workflow code; the main thread's name the SDK's bridge to its core apart from the activities.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A sample's frames, innermost first. */
type Stack = CallFrame[];
type Rule = [category: string, matches: (stack: Stack) => boolean];

const any = (stack: Stack, test: (f: CallFrame) => boolean) => stack.some(test);
const named = (f: CallFrame, file: string, ...names: string[]) =>
  f.url.includes(file) && names.includes(f.functionName);
const inPackage = (f: CallFrame, ...packages: string[]) => packages.some((p) => f.url.includes(`/node_modules/${p}/`));

/** The workflow thread: the SDK's sandbox (vm-shared.js, the bundle) and the workflow code. */
const workflowRules: Rule[] = [
  ['idle', ([f]) => f!.functionName === '(idle)'],
  ['garbage collection', ([f]) => f!.functionName === '(garbage collector)'],
  [
    "the SDK's stack of each promise (its promise hooks)",
    (s) =>
      any(s, (f) =>
        named(
          f,
          'workflow/vm-shared.js',
          ...['init', 'settled', 'getActivator', 'formatCallsiteName'],
          'Error.prepareStackTrace',
        ),
      ),
  ],
  [
    'modules instantiated per run',
    (s) => any(s, (f) => f.functionName === 'importWorkflows' || f.functionName === 'importInterceptors'),
  ],
  // The harness writes its bundles to bench-bundles-* (bench/worker-pool.ts).
  [
    'workflow code (the bundle: this project, the SDK, libraries)',
    (s) => any(s, (f) => f.url.includes('/bench-bundles-')),
  ],
  // Native: Node starts a watchdog for each call (the SDK passes a timeout), and V8 runs the sandbox's
  // microtasks (promise reactions) in its builtins within the call.
  ['calls into the sandbox, and their microtasks (runInContext, native)', ([f]) => f!.functionName === 'runInContext'],
  ["the SDK's global swap at each call (evalmachine)", ([f]) => f!.url.startsWith('evalmachine')],
  ['other (V8 compiling and running outside JavaScript)', ([f]) => f!.functionName === '(program)'],
  ["the SDK's thread messaging", () => true],
];

/** The main thread: activities, the SDK's bridge to its core, protobuf. */
const mainRules: Rule[] = [
  ['idle', ([f]) => f!.functionName === '(idle)'],
  ['garbage collection', ([f]) => f!.functionName === '(garbage collector)'],
  ['protobuf (SDK)', (s) => any(s, (f) => inPackage(f, 'protobufjs', '@temporalio/proto'))],
  // This project's worker code is lib/ (its codec apart); the floor's activities are compiled into the
  // worker script (bench-worker-*, bench/worker-pool.ts).
  [
    "activities, models and tools (this project's worker code, the AI SDK, zod; the floor's activities)",
    (s) =>
      any(s, (f) => f.url.includes('/bench-worker-')) ||
      any(s, (f) => f.url.includes('/lib/') && !f.url.includes('/node_modules/') && !f.url.includes('/lib/codec/')) ||
      any(s, (f) => inPackage(f, 'ai', '@ai-sdk/provider-utils', 'zod')),
  ],
  [
    "the SDK's worker (bridge, rxjs, payloads and codec)",
    (s) =>
      any(s, (f) => inPackage(f, '@temporalio/core-bridge', '@temporalio/worker', '@temporalio/common', 'rxjs')) ||
      any(s, (f) => f.url.includes('/lib/codec/')),
  ],
  ['other', () => true],
];

/** Milliseconds of one profile in [from, to] (microseconds of the monotonic clock), by category. */
export function categorize(profile: CpuProfile, from: number, to: number, rules: Rule[]): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  // A sample stands for the time until the next one (timeDeltas[i] is the time before sample i).
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i]!;
    const lasts = profile.timeDeltas[i + 1] ?? 0;
    if (t >= from && t <= to) selfUs.set(id, (selfUs.get(id) ?? 0) + lasts);
  });
  const out = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const stack: Stack = [];
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) stack.push(byId.get(n)!.callFrame);
    const [category] = rules.find(([, matches]) => matches(stack))!;
    out.set(category, (out.get(category) ?? 0) + us / 1000);
  }
  return out;
}

/**
 * The profiles in `dir` (one a thread: `CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`, thread 0 the
 * main one), each cut to the window, by thread kind and category.
 */
export async function profileSummary(
  dir: string,
  from: number,
  to: number,
): Promise<{ main: Map<string, number>; workflow: Map<string, number> }> {
  const main = new Map<string, number>();
  const workflow = new Map<string, number>();
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'))) {
    const thread = Number(file.split('.').at(-3));
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
    const into = thread === 0 ? main : workflow;
    for (const [k, v] of categorize(profile, from, to, thread === 0 ? mainRules : workflowRules)) {
      into.set(k, (into.get(k) ?? 0) + v);
    }
  }
  return { main, workflow };
}
