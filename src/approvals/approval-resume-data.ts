/**
 * Resume data on an approval (Mastra's `sendToolApproval({ approved, resumeData })`): what of it an
 * approval can take, and why the rest is refused. Pure.
 */
import { clip } from '../schemas/limits.js';

/**
 * Mastra's `sendToolApproval({ approved, resumeData })` as a decision: `resumeData` may repeat
 * `approved` and give a decline's `reason`; anything else in it would be data for the tool, which an
 * approval does not carry here, so it is refused by name rather than dropped. Returns the reason to
 * record, or why the approval is refused.
 */
export function approvalWithResumeData(
  approved: boolean,
  reason: string | undefined,
  resumeData: unknown,
): { reason: string | undefined } | { refusal: string } {
  if (resumeData === undefined) return { reason };
  if (typeof resumeData !== 'object' || resumeData === null || Array.isArray(resumeData)) {
    const shown = clip(JSON.stringify(resumeData));
    return { refusal: `resumeData of an approval is an object ({ approved, reason? }), not ${shown}` };
  }
  const data = resumeData as Record<string, unknown>;
  const extra = Object.keys(data).filter((k) => k !== 'approved' && k !== 'reason');
  if (extra.length > 0) {
    return {
      refusal:
        `resumeData has ${extra.map((k) => `"${clip(k)}"`).join(', ')}, but an approval carries no data to the tool ` +
        'here (it runs with its arguments): send approved (and a reason) alone, or approve with changed ' +
        'arguments (`args`) that fit its input schema',
    };
  }
  if ('approved' in data && data.approved !== approved) {
    return { refusal: `resumeData says approved: ${JSON.stringify(data.approved)}, but approved is ${approved}` };
  }
  if ('reason' in data) {
    if (typeof data.reason !== 'string') return { refusal: 'resumeData.reason is a text' };
    if (approved) return { refusal: 'resumeData.reason is for a decline; an approval takes no reason' };
    if (reason !== undefined && reason !== data.reason) {
      return { refusal: 'reason and resumeData.reason differ: give one' };
    }
    return { reason: data.reason };
  }
  return { reason };
}
