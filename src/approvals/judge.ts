/**
 * The agent's model judge: which calls it is asked about, what its answer may do, and how its verdict
 * is recorded. Pure; the workflow asks the judge through an activity and applies what this says. A
 * judge reads arguments a model wrote, so it is held to less than a person: it approves only where the
 * agent's owner said it may, never where a quorum is needed, and anything but a clear verdict (a
 * failure, a timeout, an answer of another shape) hands the call to a person.
 */
import type { AccessPolicy, ApprovalJudge } from '../schemas/access.js';
import type { DecisionRecord } from '../schemas/decisions.js';
import { clip, MAX_TEXT } from '../schemas/limits.js';

/** What the judge said of a call, as the run takes it. */
export interface JudgeVerdict {
  verdict: 'allow' | 'deny' | 'ask';
  reason: string;
}

/** Whether the judge is asked about a call of this tool (one that needs approval, past the rules). */
export function judgeApplies(judge: ApprovalJudge, toolName: string): boolean {
  return judge.tools === undefined || judge.tools.includes(toolName);
}

/**
 * The verdict the run acts on: the judge's, except an approval the owner did not let it give, which
 * hands the call to a person (with the judge's reason), and a failure, which does too. `toolRequires`:
 * whether the agent's own policy asks for the approval; where only the run asked for it (a run may
 * tighten the policy), no judge loosens that.
 */
export function judgeVerdict(
  judge: ApprovalJudge,
  answer: JudgeVerdict | { failed: string },
  toolRequires: boolean,
  /** The call needs several approvers: no judge stands for them. */
  quorum = false,
): JudgeVerdict {
  if ('failed' in answer) return { verdict: 'ask', reason: clip(`the judge could not judge: ${answer.failed}`, 500) };
  const reason = clip(answer.reason.trim() || '(no reason given)', MAX_TEXT);
  if (answer.verdict === 'allow' && quorum) {
    return { verdict: 'ask', reason: `the judge would approve, and the call needs several approvers: ${reason}` };
  }
  if (answer.verdict === 'allow' && !toolRequires) {
    return { verdict: 'ask', reason: `the judge would approve, and this run asks a person: ${reason}` };
  }
  if (answer.verdict === 'allow' && judge.allow !== true) {
    return { verdict: 'ask', reason: `the judge would approve, and may not: ${reason}` };
  }
  return { verdict: answer.verdict, reason };
}

/**
 * The trail entry of the judge's approval or denial: `ruling` names its version and model, which only
 * the run sets (a decision signal cannot carry it).
 */
export function judgeRecord(
  judge: ApprovalJudge,
  verdict: JudgeVerdict & { verdict: 'allow' | 'deny' },
  call: { toolCallId: string; toolName: string },
  at: string,
): DecisionRecord {
  return {
    decisionId: `judge:${call.toolCallId}`,
    kind: verdict.verdict === 'allow' ? 'approve' : 'decline',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    by: `approval judge ${judge.version} (${judge.model})`,
    reason: verdict.reason,
    at,
    accepted: true,
    ruling: { version: judge.version, rule: -1, judge: judge.model },
  };
}

/**
 * The judge names tools of the agent, and may approve only where one person's word is enough: never a
 * tool (or an agent) that needs a quorum.
 */
export function checkApprovalJudge(
  where: string,
  policy: Pick<AccessPolicy, 'judge' | 'quorum' | 'tools'>,
  tools: Record<string, unknown>,
): void {
  const judge = policy.judge;
  if (!judge) return;
  const unknown = (judge.tools ?? []).filter((name) => !Object.hasOwn(tools, name));
  if (unknown.length) throw new TypeError(`${where}.tools: ${unknown.join(', ')} are not tools of the agent`);
  if (!judge.allow) return;
  // Unset tools: every tool, those the agent gets from MCP servers and runs too, so the agent's quorum counts.
  if (!judge.tools && policy.quorum) {
    throw new TypeError(
      `${where}: a judge that may allow may not stand for the ${policy.quorum} approvers the agent needs; ` +
        'name the tools it judges without them, or let it only deny or ask',
    );
  }
  const judged = judge.tools ?? Object.keys(tools);
  const needQuorum = judged.filter((name) => policy.tools?.[name]?.quorum ?? policy.quorum);
  if (needQuorum.length) {
    throw new TypeError(
      `${where}: a judge that may allow may not stand for the approvers ${needQuorum.join(', ')} need ` +
        '(a quorum); name the tools it judges without them, or let it only deny or ask',
    );
  }
}
