/** Mastra's `resumeData` on an approval: what an approval takes of it, and the rest refused by name. */
import { describe, expect, it } from 'vitest';
import { approvalWithResumeData } from '../../src/approvals/approval-resume-data.js';

describe('approvalWithResumeData', () => {
  it('takes none, approved again, and a decline reason', () => {
    expect(approvalWithResumeData(true, undefined, undefined)).toEqual({ reason: undefined });
    expect(approvalWithResumeData(true, undefined, {})).toEqual({ reason: undefined });
    expect(approvalWithResumeData(true, undefined, { approved: true })).toEqual({ reason: undefined });
    expect(approvalWithResumeData(false, undefined, { approved: false, reason: 'no' })).toEqual({ reason: 'no' });
    expect(approvalWithResumeData(false, 'no', { reason: 'no' })).toEqual({ reason: 'no' });
  });

  it('refuses data for the tool, a contradiction, and a form it cannot read, saying why', () => {
    const refusal = (approved: boolean, reason: string | undefined, data: unknown) =>
      (approvalWithResumeData(approved, reason, data) as { refusal: string }).refusal;
    expect(refusal(true, undefined, { approved: true, note: 'hi', to: 'x' })).toMatch(
      /^resumeData has "note", "to", but an approval carries no data to the tool/,
    );
    expect(refusal(true, undefined, { approved: false })).toBe('resumeData says approved: false, but approved is true');
    expect(refusal(true, undefined, { reason: 'ok' })).toBe(
      'resumeData.reason is for a decline; an approval takes no reason',
    );
    expect(refusal(false, 'a', { reason: 'b' })).toBe('reason and resumeData.reason differ: give one');
    expect(refusal(false, undefined, { reason: 3 })).toBe('resumeData.reason is a text');
    expect(refusal(true, undefined, 'yes')).toBe(
      'resumeData of an approval is an object ({ approved, reason? }), not "yes"',
    );
  });
});
