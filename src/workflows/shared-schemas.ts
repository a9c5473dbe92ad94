/**
 * The modules every run of a worker's workflow bundle shares: the schema modules (and zod, which they
 * import). `createWorker` bundles with this module in `preloadModules` (see `workflowBundleOptions`), so
 * that Temporal's reusable V8 context instantiates them once, not once per run: their schemas are most
 * of what a run holds in the worker (see src/schemas/warm-schemas.ts for why they are warmed first).
 *
 * A schema module belongs here only if it holds no state a run could change: the SDK freezes what is
 * shared. test/unit/shared-schemas.test.ts checks that every schema module of the bundle is here.
 * Workflow code derives from a shared schema with `.extend`, `.pick`, `.optional` and the like, never
 * `.refine`, `.describe`, `.meta` or `.clone` on an object schema: those redefine its frozen shape.
 *
 * Two stateless modules beside them cost every run as much to instantiate as the schemas did: the run's
 * signals, queries and updates with their request schemas, and the fingerprints' SHA-256 (@noble/hashes
 * computes its tables when it loads). They are shared too (bench/README.md, "Where a worker's CPU goes").
 */
import * as fingerprint from '../approvals/fingerprint.js';
import * as runMessages from '../protocol/run-messages.js';
import * as access from '../schemas/access.js';
import * as agentSpec from '../schemas/agent-spec.js';
import * as autoResume from '../schemas/auto-resume.js';
import * as dataChunks from '../schemas/data-chunks.js';
import * as deadline from '../schemas/deadline.js';
import * as decisions from '../schemas/decisions.js';
import * as grants from '../schemas/grants.js';
import * as json from '../schemas/json.js';
import * as limits from '../schemas/limits.js';
import * as message from '../schemas/message.js';
import * as modelRetry from '../schemas/model-retry.js';
import * as modelStep from '../schemas/model-step.js';
import * as receipts from '../schemas/receipts.js';
import * as runInput from '../schemas/run-input.js';
import * as runMessage from '../schemas/run-message.js';
import * as runOptions from '../schemas/run-options.js';
import * as runResult from '../schemas/run-result.js';
import * as runStatus from '../schemas/run-status.js';
import * as safeParse from '../schemas/safe-parse.js';
import * as schemaCost from '../schemas/schema-cost.js';
import * as schemaPatterns from '../schemas/schema-patterns.js';
import * as shownPending from '../schemas/shown-pending.js';
import * as script from '../schemas/script.js';
import * as streamCarried from '../schemas/stream-carried.js';
import * as streamChunks from '../schemas/stream-chunks.js';
import * as streamGrace from '../schemas/stream-grace.js';
import * as streamGraceMs from '../schemas/stream-grace-ms.js';
import * as streamProtocol from '../schemas/stream-protocol.js';
import * as structuredOutput from '../schemas/structured-output.js';
import * as tasks from '../schemas/tasks.js';
import * as thread from '../schemas/thread.js';
import * as transformStages from '../schemas/transform-stages.js';
import * as undecodable from '../schemas/undecodable.js';
import * as workingMemory from '../schemas/working-memory.js';
import { warmSchemas } from '../schemas/warm-schemas.js';

warmSchemas(
  fingerprint,
  runMessages,
  access,
  agentSpec,
  autoResume,
  dataChunks,
  deadline,
  decisions,
  grants,
  json,
  limits,
  message,
  modelRetry,
  modelStep,
  receipts,
  runInput,
  runMessage,
  runOptions,
  runResult,
  runStatus,
  safeParse,
  schemaCost,
  schemaPatterns,
  script,
  shownPending,
  streamCarried,
  streamChunks,
  streamGrace,
  streamGraceMs,
  streamProtocol,
  structuredOutput,
  tasks,
  thread,
  transformStages,
  undecodable,
  workingMemory,
);
