/**
 * Approval rules: the agent's own rules, asked before a call that needs approval waits for a person. The
 * first rule that matches the call (its tool, its arguments, who started the run, the hour) gives the
 * verdict: `allow` (it runs), `deny` (declined, with the reason) or `ask` (a person decides, as without
 * rules). No rule matching asks a person too: rules can only spare a person a decision the agent's owner
 * wrote down, never skip one silently. Pure; the ledger records the verdict with the rules' version.
 */
import type { AccessPolicy, ApprovalRule, ApprovalRules, Principal } from '../schemas/access.js';
import type { DecisionRecord } from '../schemas/decisions.js';
import type { JsonValue } from '../schemas/json.js';
import { admits } from './access.js';
import { argsMeet, parseCondition, storedConditions } from './batch.js';
import { NO_EVIDENCE, type ReceiptEvidence } from './receipts.js';
import type { DecisionCheck } from './rules.js';

/** A verdict of the rules: which rule gave it (null: none matched), and the rules' version. */
export interface RuleVerdict {
  verdict: 'allow' | 'deny' | 'ask';
  rule: number | null;
  version: string;
  reason: string | undefined;
}

/**
 * What the rules say of a call, at `at` (workflow time), in a run started by `startedBy`. `allow` only
 * where the agent's own policy asks for the approval (`toolRequires`): a run that asked for approvals
 * itself may tighten the policy, and no rule loosens that.
 */
export function evaluateRules(
  rules: ApprovalRules,
  call: { toolName: string; args: JsonValue },
  startedBy: Principal | undefined,
  at: string,
  toolRequires = true,
): RuleVerdict {
  const hour = new Date(at).getUTCHours();
  const index = rules.rules.findIndex((rule) => {
    if (rule.verdict === 'allow' && !toolRequires) return false;
    if (rule.tool !== '*' && rule.tool !== call.toolName) return false;
    if (rule.startedBy && !admits(rule.startedBy, startedBy)) return false;
    if (rule.hours && !(hour >= rule.hours.from && hour < rule.hours.to)) return false;
    // The raw arguments, which the call's fingerprint binds (not a display form that may hide them). An
    // allow needs each condition to hold; a deny or an ask also takes what cannot be told (a value that is
    // missing or of another type, a condition that does not parse): those fail closed.
    const cautious = rule.verdict !== 'allow';
    const where = storedConditions(rule.where ?? []);
    if (where === undefined) return cautious;
    return argsMeet(call.args, where, { unknownHolds: cautious });
  });
  const rule = rules.rules[index];
  if (!rule) return { verdict: 'ask', rule: null, version: rules.version, reason: undefined };
  return { verdict: rule.verdict, rule: index, version: rules.version, reason: rule.reason };
}

/**
 * An accepted decision, unless it changes the arguments into a call the rules deny (a person may change
 * what the rules asked them about, never into what the rules forbid): then an `InvalidArguments` refusal.
 */
export function changeWithinRules(
  check: DecisionCheck,
  rules: ApprovalRules | undefined,
  args: JsonValue | undefined,
  run: { startedBy: Principal | undefined },
  at: string,
): DecisionCheck {
  if (!check.accepted || !rules || args === undefined || check.call.path.length > 0) return check;
  const ruling = evaluateRules(rules, { toolName: check.call.toolName, args }, run.startedBy, at);
  if (ruling.verdict !== 'deny') return check;
  const why = ruling.reason ? `: ${ruling.reason}` : '';
  const message = `the changed arguments are denied by approval rule ${ruling.rule} (rules ${ruling.version})${why}`;
  return { accepted: false, type: 'InvalidArguments', message, call: check.call };
}

/**
 * The trail entry of a verdict of the rules: an approval or a decline with `ruling` (the rules' version and
 * the rule's number), which only the run sets (a decision signal cannot carry it), and the rule's reason.
 */
export function rulesRecord(
  ruling: RuleVerdict,
  call: { toolCallId: string; toolName: string },
  at: string,
): DecisionRecord {
  return {
    decisionId: `rules:${call.toolCallId}`,
    kind: ruling.verdict === 'allow' ? 'approve' : 'decline',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    by: `approval rules ${ruling.version}, rule ${ruling.rule}`,
    reason: ruling.reason ?? null,
    at,
    accepted: true,
    ruling: { version: ruling.version, rule: ruling.rule ?? -1 },
  };
}

/** What a verdict of the rules' receipt binds: the call's fingerprint (no person's data or signature). */
export function rulesEvidence(call: { fingerprint: string }): ReceiptEvidence {
  return { ...NO_EVIDENCE, fingerprint: call.fingerprint };
}

/**
 * Each rule names a tool of the agent (or `*`), each of its conditions parses, and its hours are a span.
 * An `allow` may not stand for a person where the policy wants more than one person's word (a quorum),
 * may not rest on who started the run (what a starter claims is not signed), and may not take every call
 * of every tool (that is no approval: the tools should not ask for one).
 */
export function checkApprovalRules(
  where: string,
  policy: Pick<AccessPolicy, 'rules' | 'quorum' | 'tools'>,
  tools: Record<string, unknown>,
): void {
  for (const [i, rule] of (policy.rules?.rules ?? []).entries()) {
    const at = `${where}[${i}]`;
    if (rule.tool !== '*' && !Object.hasOwn(tools, rule.tool)) {
      throw new TypeError(`${at}: tool "${rule.tool}" is not one of the agent's (name one, or "*")`);
    }
    if (rule.hours && rule.hours.from >= rule.hours.to) {
      throw new TypeError(
        `${at}: hours from ${rule.hours.from} to ${rule.hours.to} is no span: from must be before to`,
      );
    }
    if (rule.verdict === 'allow') allowProblem(at, rule, policy);
    for (const condition of rule.where ?? []) {
      try {
        parseCondition(condition);
      } catch (err) {
        throw new TypeError(`${at}: ${(err as Error).message}`, { cause: err });
      }
    }
  }
}

function allowProblem(at: string, rule: ApprovalRule, policy: Pick<AccessPolicy, 'quorum' | 'tools'>): void {
  const quorum = rule.tool === '*' ? policy.quorum : (policy.tools?.[rule.tool]?.quorum ?? policy.quorum);
  if (quorum) throw new TypeError(`${at}: an allow may not stand for the ${quorum} approvers its tool needs`);
  if (rule.startedBy) {
    throw new TypeError(
      `${at}: an allow may not rest on startedBy (who started a run is their claim); use it to deny or ask`,
    );
  }
  if (rule.tool === '*' && !rule.where?.length && !rule.hours) {
    throw new TypeError(`${at}: an allow of every call of every tool is no approval: let the tools not ask for one`);
  }
}
