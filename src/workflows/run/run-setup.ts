/**
 * What a run decides once: what its agent's spec makes of it when the spec is known (before any call
 * waits). Read-only from then on.
 */
import { readers } from '../../approvals/access.js';
import { escalationDeciders } from '../../approvals/deadline.js';
import type { AgentSpec } from '../../schemas/agent-spec.js';
import type { Principal } from '../../schemas/access.js';
import type { RunMemo } from '../../schemas/run-result.js';
import type { RunAccess } from '../../approvals/rules.js';
import type { AutoResumeSettings } from '../../schemas/auto-resume.js';

/** What a new message on a run's thread may decide, and the model that reads it; who sends one decides as by hand. */
export interface AutoResumeSetup {
  settings: AutoResumeSettings;
  model: string | undefined;
  run: RunAccess;
}

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
