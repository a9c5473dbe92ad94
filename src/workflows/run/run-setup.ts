/**
 * What a run decides once: the patches its history takes, and what its agent's spec makes of it when
 * the spec is known (before any call waits). Read-only from then on.
 */
import { readers } from '../../approvals/access.js';
import { escalationDeciders } from '../../approvals/deadline.js';
import type { AgentSpec } from '../../schemas/agent-spec.js';
import type { Principal } from '../../schemas/access.js';
import type { RunMemo } from '../../schemas/run-result.js';

/** The patch of the lean history's commands; runs from before replay without it. */
export const LEAN_HISTORY_PATCH = 'lean-history';

/**
 * The patch under which a decision that arrives after a call's deadline passed is refused as late (the
 * call expires first), however the timer and the decision were batched; runs from before took it.
 */
export const DEADLINES_FIRST_PATCH = 'deadlines-before-decisions';

export interface RunSetup {
  /** The names of the tools whose display transform changes what the stream shows of their calls. */
  readonly displayTools: ReadonlySet<string>;
  /** Whether every decision must carry an approver's signature (the worker has decision keys). */
  readonly signedDecisions: boolean;
  /** Whether the worker sends notifications (its spec says so): only then does the run schedule any. */
  readonly notifications: boolean;
  /** Who started the run (for a sub-agent's run: the top run), and who may read it. */
  readonly access: Pick<RunMemo, 'startedBy' | 'read'>;
}

/** The set-up of a run whose spec is not known yet: nothing waits, nothing is shown changed. */
export const NO_SETUP: RunSetup = { displayTools: new Set(), signedDecisions: false, notifications: false, access: {} };

/** What the spec decides for a run started by `startedBy`. */
export function runSetup(spec: AgentSpec, startedBy: Principal | undefined): RunSetup {
  const read = readers(spec.access, escalationDeciders(spec));
  return {
    displayTools: new Set(spec.tools.filter((t) => t.transform?.display.length).map((t) => t.name)),
    signedDecisions: spec.signedDecisions === true,
    notifications: spec.notifications === true,
    access: { ...(startedBy ? { startedBy } : {}), ...(read ? { read } : {}) },
  };
}
