/**
 * The stages of a tool call that transforms change: what the run's stream shows (`display`) and what
 * the stored transcript keeps (`transcript`). Sandbox-safe: the workflow reads them from the spec.
 */

/** The stages of a call the stream shows. */
export const DISPLAY_STAGES = ['input', 'inputDelta', 'output', 'error', 'approval', 'suspend', 'resume'] as const;
export type DisplayStage = (typeof DISPLAY_STAGES)[number];

/**
 * The stages of a call the transcript keeps: the call's input, its output (before `toModelOutput`)
 * and its error. Approvals, suspensions and resumes are not part of the conversation the model reads.
 */
export const TRANSCRIPT_STAGES = ['input', 'output', 'error'] as const;
export type TranscriptStage = (typeof TRANSCRIPT_STAGES)[number];
