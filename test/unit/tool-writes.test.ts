import { describe, expect, it } from 'vitest';
import { MAX_PROGRESS_BYTES, MAX_PROGRESS_SLICE_BYTES, MAX_WRITE_BYTES } from '../../src/schemas/limits.js';
import { checkWrite } from '../../src/schemas/data-chunks.js';
import { RunChunkSchema, type AgentProgressChunk, type RunStreamChunk } from '../../src/schemas/stream-chunks.js';
import { ChunkBatchSchema } from '../../src/schemas/stream-protocol.js';
import { UiChunkMapper } from '../../src/server/ui-message-chunks.js';
import { ProgressRouting } from '../../src/workflows/run/progress.js';
import type { ChunkIntake } from '../../src/workflows/stream/stream-handlers.js';
import { withinBudget } from '../../src/workflows/stream/stream-handlers.js';

const refusal = (value: unknown) => {
  const checked = checkWrite(value);
  return checked.ok ? 'taken' : checked.problem;
};

describe('checkWrite: what a tool may write to its stream', () => {
  it('takes a data part, its data as JSON (dates as strings, undefined dropped), and measures its data', () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    expect(
      checkWrite({ type: 'data-progress', data: { at, skip: undefined, n: 1 }, id: 'p', transient: false }),
    ).toEqual({
      ok: true,
      chunk: { type: 'data-progress', data: { at: '2026-01-02T03:04:05.000Z', n: 1 }, id: 'p', transient: false },
      bytes: JSON.stringify({ at: '2026-01-02T03:04:05.000Z', n: 1 }).length,
    });
    expect(checkWrite({ type: 'data-a.b_c-1', data: null })).toMatchObject({ ok: true, bytes: 4 });
  });

  it('refuses what is no data part, with what is wrong', () => {
    expect(refusal('data-x')).toMatch(
      /^a chunk is an object \{ type: "data-<name>", data, id\?, transient\? \}, not "data-x"$/,
    );
    expect(refusal([1])).toMatch(/not an array$/);
    expect(refusal({ type: 'text-delta', data: 1 })).toBe('its type must be "data-<name>", not "text-delta"');
    expect(refusal({ data: 1 })).toBe('its type must be "data-<name>", not undefined');
    expect(refusal({ type: 'data-', data: 1 })).toMatch(/"data-" is not a data part type: its <name> has 1 to 64/);
    expect(refusal({ type: 'data-has space', data: 1 })).toMatch(/is not a data part type/);
    expect(refusal({ type: `data-${'n'.repeat(65)}`, data: 1 })).toMatch(/is not a data part type/);
    expect(refusal({ type: 'data-x', data: 1, extra: true, more: 2 })).toBe(
      'unknown field(s) "extra", "more"; a chunk has type, data, id?, transient?',
    );
    expect(refusal({ type: 'data-x' })).toBe('it has no data: write { type, data }');
    expect(refusal({ type: 'data-x', data: 1, id: '' })).toMatch(/^its id must be a string of 1 to 256 characters/);
    expect(refusal({ type: 'data-x', data: 1, id: 'i'.repeat(257) })).toMatch(/^its id must be/);
    expect(refusal({ type: 'data-x', data: 1, transient: 'yes' })).toBe('transient must be true or false, not "yes"');
  });

  it("refuses the names of the runner's own parts", () => {
    for (const type of ['data-tool-suspended', 'data-tool-anything', 'data-agent-progress', 'data-agent-x']) {
      expect(refusal({ type, data: {} })).toMatch(/is reserved for the runner's own parts/);
    }
    expect(refusal({ type: 'data-tools', data: {} })).toBe('taken');
  });

  it('refuses data that is not JSON, nests too deep, or is over the limit (marked too large)', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(refusal({ type: 'data-x', data: cyclic })).toMatch(/^its data is not JSON data: .*circular/i);
    expect(refusal({ type: 'data-x', data: BigInt(1) })).toMatch(/^its data is not JSON data: .*BigInt/);
    expect(refusal({ type: 'data-x', data: () => 1 })).toMatch(
      /^its data is not JSON data: a function has no JSON form/,
    );
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(refusal({ type: 'data-x', data: deep })).toMatch(/nests deeper than 64 levels/);
    let deeper: unknown = 1;
    for (let i = 0; i < 100_000; i++) deeper = [deeper];
    expect(checkWrite({ type: 'data-x', data: deeper }).ok).toBe(false);
    const over = checkWrite({ type: 'data-x', data: 'x'.repeat(MAX_WRITE_BYTES) });
    expect(over).toEqual({
      ok: false,
      tooLarge: true,
      problem: 'its data is 17 KiB of JSON, over the 16 KiB a chunk may hold',
    });
    expect(checkWrite({ type: 'data-x', data: 'x'.repeat(MAX_WRITE_BYTES - 2) }).ok).toBe(true);
  });
});

const progress = (toolCallId: string, event: AgentProgressChunk['data']['event']): AgentProgressChunk => ({
  type: 'data-agent-progress',
  data: { agentId: 'sub', runId: 'run::call-0-0', toolCallId, event },
});

describe('the stream schemas of written chunks and progress', () => {
  it('read data parts and progress as run chunks; a reserved name only in its own form', () => {
    expect(RunChunkSchema.safeParse({ type: 'data-x', data: { a: 1 }, transient: true }).success).toBe(true);
    const p = progress('call-0-0', { type: 'text-delta', stepNumber: 0, delta: 'hi' });
    expect(RunChunkSchema.parse(p)).toEqual(p);
    expect(RunChunkSchema.safeParse({ type: 'data-agent-progress', data: { anything: 1 } }).success).toBe(false);
    expect(RunChunkSchema.safeParse({ type: 'data-tool-suspended', data: {} }).success).toBe(false);
    expect(RunChunkSchema.safeParse({ type: 'data-x', data: 'x'.repeat(MAX_WRITE_BYTES + 1) }).success).toBe(false);
  });

  it('bound what a progress event carries', () => {
    const big = { blob: 'x'.repeat(5000) };
    const call = { toolCallId: 'c', toolName: 't' };
    expect(RunChunkSchema.safeParse(progress('c', { type: 'tool-result', ...call, output: big })).success).toBe(false);
    expect(RunChunkSchema.safeParse(progress('c', { type: 'tool-call', ...call, args: big })).success).toBe(false);
    const text = progress('c', { type: 'text-delta', stepNumber: 0, delta: 'x'.repeat(MAX_PROGRESS_SLICE_BYTES + 1) });
    expect(RunChunkSchema.safeParse(text).success).toBe(false);
  });

  it('take written chunks and progress in a batch, and nothing else', () => {
    const batch = (chunks: unknown[]) =>
      ChunkBatchSchema.safeParse({ token: 't', publisher: 'p', sequence: 1, chunks });
    expect(batch([{ type: 'data-x', data: 1 }, progress('c', { type: 'truncated', reason: 'r' })]).success).toBe(true);
    expect(batch([{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: 1 }]).success).toBe(false);
    expect(batch([{ type: 'data-tool-resumed', data: {} }]).success).toBe(false);
  });
});

describe('UiChunkMapper: data parts', () => {
  it('maps a written chunk to the data part it is, and progress to data-agent-progress', () => {
    const m = new UiChunkMapper('r');
    const chunks: RunStreamChunk[] = [
      { type: 'data-progress', data: { percent: 50 }, id: 'p', offset: 1 },
      { type: 'data-ping', data: 1, transient: true, offset: 2 },
      { ...progress('call-0-0', { type: 'text-delta', stepNumber: 1, delta: 'hi' }), offset: 3 },
    ];
    expect(chunks.flatMap((c) => m.map(c))).toEqual([
      { type: 'data-progress', id: 'p', data: { percent: 50 } },
      { type: 'data-ping', data: 1, transient: true },
      {
        type: 'data-agent-progress',
        data: {
          agentId: 'sub',
          runId: 'run::call-0-0',
          toolCallId: 'call-0-0',
          event: { type: 'text-delta', stepNumber: 1, delta: 'hi' },
        },
      },
    ]);
  });
});

describe("the budget of a sub-agent's progress", () => {
  it('takes progress up to the budget of its delegation, then says once that the rest is not shown', () => {
    const delegation = { toolCallId: 'call-0-0', bytes: 0, truncated: false };
    const chunk = progress('call-0-0', { type: 'text-delta', stepNumber: 0, delta: 'x'.repeat(30_000) });
    const taken = withinBudget(
      delegation,
      Array.from({ length: 20 }, () => chunk),
    );
    const size = JSON.stringify(chunk).length;
    const fits = Math.floor(MAX_PROGRESS_BYTES / size);
    expect(taken).toHaveLength(fits + 1);
    expect(taken.at(-1)!.data.event).toEqual({
      type: 'truncated',
      reason: 'the progress of this delegation reached its budget of 256 KiB; the rest is not shown',
    });
    expect(delegation.bytes).toBe(fits * size);
    expect(withinBudget(delegation, [chunk])).toEqual([]);
  });

  it("gives each activity of a sub-agent's run a slice, takes back what it did not send, and its own sub-agents half of what is left", () => {
    const target = { runId: 'top', token: 'secret', toolCallId: 'call-0-0', budgetBytes: 100_000 };
    const routing = new ProgressRouting({ runId: 'top::call-0-0', agentId: 'sub' }, {} as ChunkIntake, false, target);
    const slice = routing.slice()!;
    expect(slice).toEqual({ ...target, budgetBytes: MAX_PROGRESS_SLICE_BYTES });
    routing.settle(slice, 1000);
    expect(routing.carried()).toEqual({ ...target, budgetBytes: 99_000 });
    routing.settle(routing.slice(), undefined); // a failed activity: its slice counts as sent
    expect(routing.carried()!.budgetBytes).toBe(99_000 - MAX_PROGRESS_SLICE_BYTES);
    const child = routing.forChild('call-1-0')!;
    expect(child).toEqual({ runId: 'top', token: 'secret', toolCallId: 'call-0-0/call-1-0', budgetBytes: 33_116 });
    expect(routing.carried()!.budgetBytes).toBe(33_116);
    // Nothing is given once too little is left.
    const poor = new ProgressRouting({ runId: 'r', agentId: 'a' }, {} as ChunkIntake, false, {
      ...target,
      budgetBytes: 1500,
    });
    expect(poor.slice()).toBeDefined();
    expect(poor.slice()).toBeUndefined();
    expect(poor.forChild('c')).toBeUndefined();
  });

  it('sends nothing from a run that neither streams nor is below one that does', () => {
    const routing = new ProgressRouting({ runId: 'r', agentId: 'a' }, {} as ChunkIntake, false, undefined);
    expect(routing.sends).toBe(false);
    expect(routing.slice()).toBeUndefined();
    expect(routing.forChild('call-0-0')).toBeUndefined();
  });
});
