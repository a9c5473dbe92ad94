/**
 * Item 7 of issue #15: a delta's way from the model activity to a subscriber of the HTTP server's SSE
 * stream (`GET /runs/:runId/stream`), with 1 and with 50 concurrent subscribers of the run, and where
 * the time goes: from the run's history, when the batch's signal was accepted and when the workflow
 * task that took it in completed. The worker is a process of its own; the server and its subscribers
 * share this one (as a server and its browsers would not: the subscribers' parsing is on the server's CPU).
 */
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { AgentClient } from '../src/client/index.js';
import { startServer } from '../src/server/index.js';
import { fmt, row, summarize, type Summary } from './stats.js';
import { startWorkerProcess } from './worker-pool.js';
import type { Say } from './waiting.js';

const EventType = proto.temporal.api.enums.v1.EventType;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** Each delta stamp a subscriber received, with when. */
type Received = Array<{ stamp: number; at: number }>;

/**
 * Reads one SSE stream to its end; keeps the delta stamps emitted after the subscriber was connected
 * (earlier ones waited for the connection, not for the stream).
 */
async function subscribe(url: string): Promise<Received> {
  const response = await fetch(url);
  if (!response.ok || !response.body) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  const connected = Date.now();
  const received: Received = [];
  const decoder = new TextDecoder();
  let buffered = '';
  const reader = response.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    const at = Date.now();
    buffered += decoder.decode(read.value, { stream: true });
    const events = buffered.split('\n\n');
    buffered = events.pop()!;
    for (const event of events) {
      const data = event.split('\n').find((l) => l.startsWith('data: '));
      if (!data || data === 'data: [DONE]') continue;
      const chunk = JSON.parse(data.slice(6)) as { type: string; delta?: string };
      if (chunk.type !== 'text-delta') continue;
      for (const stamp of chunk.delta!.split(';').filter(Boolean).map(Number)) {
        if (stamp >= connected) received.push({ stamp, at });
      }
    }
  }
  return received;
}

const eventMs = (e: HistoryEvent): number => Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;

/** For each delta stamp of the run: when its batch's signal was accepted, and when the task that took it in ended. */
function batchTimes(events: HistoryEvent[]): Map<number, { signaled: number; applied: number }> {
  const out = new Map<number, { signaled: number; applied: number }>();
  events.forEach((e, i) => {
    const signal = e.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName !== 'publishChunks') return;
    const applied = events.slice(i).find((x) => x.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
    const batch = defaultPayloadConverter.fromPayload<{ chunks: Array<{ type: string; delta?: string }> }>(
      signal.input!.payloads![0]!,
    );
    for (const chunk of batch.chunks) {
      if (chunk.type !== 'text-delta' || !applied) continue;
      for (const stamp of (chunk.delta ?? '').split(';').filter(Boolean).map(Number)) {
        out.set(stamp, { signaled: eventMs(e), applied: eventMs(applied) });
      }
    }
  });
  return out;
}

export interface StreamLatencyFigures {
  total: Summary;
  /** Emitted -> its batch's signal accepted by the server (waiting for the batch, then the signal). */
  toSignal: Summary;
  /** Signal accepted -> the workflow task that appended it to the run's stream completed. */
  toApplied: Summary;
  /** Task completed -> the subscriber received it (the server's poll of the run, its query, SSE). */
  toSubscriber: Summary;
}

export async function streamLatencyHttp(
  address: string,
  temporalClient: Client,
  bundle: string,
  say: Say,
  options: { deltas: number; rounds: number; subscribers: number[] },
): Promise<Record<number, StreamLatencyFigures>> {
  const taskQueue = `bench-stream-${randomUUID().slice(0, 8)}`;
  const worker = await startWorkerProcess({ address, taskQueue, kind: 'agent', bundle });
  const client = await AgentClient.connect({ address, namespace: 'default', taskQueue });
  const server = await startServer(client, { port: 0 });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  type Parts = Record<keyof StreamLatencyFigures, number[]>;
  const one = async (subscribers: number, parts?: Parts): Promise<void> => {
    // A stream's run stays open a while after it finishes (its grace), so that readers get every delta.
    const { runId } = await client.stream('bench-agent', 'go', { model: `bench-stream/${options.deltas}` });
    const url = `${base}/runs/${runId}/stream?offset=0`;
    const all = (await Promise.all(Array.from({ length: subscribers }, () => subscribe(url)))).flat();
    await client.result(runId);
    if (!parts) return;
    const batches = batchTimes((await temporalClient.workflow.getHandle(runId).fetchHistory()).events ?? []);
    for (const { stamp, at } of all) {
      parts.total.push(at - stamp);
      const batch = batches.get(stamp);
      if (!batch) continue;
      parts.toSignal.push(batch.signaled - stamp);
      parts.toApplied.push(batch.applied - batch.signaled);
      parts.toSubscriber.push(at - batch.applied);
    }
  };
  const parts: Record<number, Parts> = Object.fromEntries(
    options.subscribers.map((n) => [n, { total: [], toSignal: [], toApplied: [], toSubscriber: [] }]),
  );
  try {
    await one(1); // warm-up: the worker's first run loads its workflow code
    for (let r = 0; r < options.rounds; r++) {
      for (const n of options.subscribers) await one(n, parts[n]);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await client.close();
    await worker.stop();
  }
  const out = Object.fromEntries(
    Object.entries(parts).map(([n, p]) => [
      n,
      Object.fromEntries(Object.entries(p).map(([k, v]) => [k, summarize(v)])) as unknown as StreamLatencyFigures,
    ]),
  );
  say(
    `## Stream latency through the HTTP server: delta emitted -> SSE subscriber receives it ` +
      `(${options.rounds} runs of ${options.deltas} deltas 10 ms apart each; batches every 100 ms)`,
  );
  say('');
  say(
    row(['subscribers of the run', 'deltas received', 'p50 ms', 'p95 ms', 'p99 ms', 'to the signal, p50']) +
      ' signal to applied, p50 | applied to the subscriber, p50 |',
  );
  say('|---|---|---|---|---|---|---|---|');
  for (const n of options.subscribers) {
    const f = out[n]!;
    const t = f.total;
    say(
      `| ${n} | ${t.n} | ${fmt(t.median, 0)} | ${fmt(t.p95, 0)} | ${fmt(t.p99, 0)} | ${fmt(f.toSignal.median, 0)} | ` +
        `${fmt(f.toApplied.median, 0)} | ${fmt(f.toSubscriber.median, 0)} |`,
    );
  }
  say('');
  say('(To the signal: the wait for the batch, half an interval on average, and the signal; signal to applied:');
  say('the workflow task that appends the batch to the run; applied to the subscriber: the server polls the run');
  say("by a query every 20 ms while it streams, then SSE. Server times for the middle step, this host's clock");
  say('for the others: one machine.)');
  say('');
  return out;
}
