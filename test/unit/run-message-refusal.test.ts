/** What the client makes of a failed `runMessage` update: a refusal with its reason, or the failure as it is. */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { RunMessageRefusedError } from '../../src/errors.js';
import { messageRefusal } from '../../src/client/runs/run-message.js';

const failed = (cause: Error) => new WorkflowUpdateFailedError('Workflow Update failed', cause);

describe('a failed runMessage update, as the client reports it', () => {
  it("is the run's refusal, by its type", () => {
    const refusal = messageRefusal('run-1', failed(ApplicationFailure.nonRetryable('20 waiting', 'QueueFull')));
    expect(refusal).toBeInstanceOf(RunMessageRefusedError);
    expect(refusal).toMatchObject({ type: 'QueueFull', reason: '20 waiting' });
  });

  // The SDK of a run whose code has no handler rejects the update by name, with no type: the HTTP route
  // answered 500 with the SDK's words.
  it('is NotSupported for a run whose workflow code predates messages', () => {
    const old = failed(ApplicationFailure.nonRetryable('No registered handler for update: runMessage'));
    expect(messageRefusal('run-1', old)).toMatchObject({
      type: 'NotSupported',
      message: expect.stringContaining('run run-1 runs workflow code from before messages to working runs'),
    });
  });

  it('is left as it is when it is anything else', () => {
    expect(messageRefusal('run-1', failed(ApplicationFailure.nonRetryable('boom', 'Other')))).toBeUndefined();
    expect(messageRefusal('run-1', new Error('network'))).toBeUndefined();
    const otherUpdate = failed(ApplicationFailure.nonRetryable('No registered handler for update: other'));
    expect(messageRefusal('run-1', otherUpdate)).toBeUndefined();
  });
});
