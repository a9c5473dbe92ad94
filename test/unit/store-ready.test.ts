import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { untilStoreTakesWrites, type PayloadStoreProbe } from '../../src/worker/activities/tools/store-ready.js';

/** A store that refuses `refusals` writes, then takes them; counts the probes. */
function store(refusals: number): PayloadStoreProbe & { probes: number } {
  const s = {
    threshold: 1000,
    probes: 0,
    takesWrites: async () => {
      s.probes++;
      if (s.probes <= refusals) throw new Error('connect ECONNREFUSED 127.0.0.1:8333');
    },
  };
  return s;
}

const large = { blob: 'x'.repeat(2000) };

/** An attempt scheduled now, with this long to run and a heartbeat timeout of 300 ms. */
function attempt(startToCloseTimeoutMs: number) {
  const env = new MockActivityEnvironment({
    startToCloseTimeoutMs,
    currentAttemptScheduledTimestampMs: Date.now(),
    heartbeatTimeoutMs: 300,
  });
  let heartbeats = 0;
  env.on('heartbeat', () => heartbeats++);
  return { env, heartbeats: () => heartbeats };
}

describe("a tool's large output and a payload store that does not take writes", () => {
  it('waits, heartbeating, until the store takes writes again', async () => {
    const s = store(2);
    const { env, heartbeats } = attempt(120_000);
    await env.run(() => untilStoreTakesWrites(s, large));
    expect(s.probes).toBe(3);
    // Paused 0.5 s, then 1 s, with a heartbeat every 100 ms: the server never takes the call for dead.
    expect(heartbeats()).toBeGreaterThan(0);
  });

  it('asks nothing of the store for an output that stays in the history, counted in bytes', async () => {
    const s = store(0);
    await attempt(120_000).env.run(() => untilStoreTakesWrites(s, { small: 'x' }));
    // 300 characters of 3 bytes each: 900 bytes, over half the threshold.
    await attempt(120_000).env.run(() => untilStoreTakesWrites(s, { text: '語'.repeat(300) }));
    expect(s.probes).toBe(1);
    s.probes = 0;
    await attempt(120_000).env.run(() => untilStoreTakesWrites(undefined, large));
    expect(s.probes).toBe(0);
  });

  it("gives up before the attempt's start-to-close timeout, leaving the store's write to fail the call", async () => {
    const s = store(Number.POSITIVE_INFINITY);
    // 15 s are kept back for the SDK's own write, and a whole probe (10 s) must fit after each pause: of
    // 27 s, that leaves three probes, 0.5 and 1 s apart (a fourth, 2 s later, could end past the deadline).
    await attempt(27_000).env.run(() => untilStoreTakesWrites(s, large));
    expect(s.probes).toBe(3);
  });

  it('stops waiting when the activity is cancelled', async () => {
    const s = store(Number.POSITIVE_INFINITY);
    const { env } = attempt(600_000);
    const waiting = env.run(() => untilStoreTakesWrites(s, large));
    await new Promise((resolve) => setTimeout(resolve, 100));
    env.cancel();
    await waiting;
    expect(s.probes).toBeLessThan(3);
  });
});
