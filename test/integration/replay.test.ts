/**
 * Replays recorded histories (test/histories/*.json, made by `npm run record-histories`) against
 * today's workflow code, so that a change that would break runs in flight fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { workflowSpanSinks } from '../../src/tracing/config.js';
import { describe, expect, inject, it } from 'vitest';
import '../helpers.js';

const dir = new URL('../histories/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('replay of recorded histories', () => {
  it('has histories to replay', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'weather-agent.json',
        'invalid-tool-args.json',
        'script-exhausted.json',
        'approve-with-refusal.json',
        'decline-in-parallel.json',
        'suspend-and-resume.json',
        'supervisor-approve-at-depth.json',
        'client-tool.json',
        'transforms.json',
        'agent-hooks.json',
        'web-search.json',
        'mcp-tool.json',
        'run-client-tools.json',
        // Recorded by the version before the guarded stream: long-poll reads, the library's publishes.
        'streamed-before-guard.json',
        'streamed-guarded.json',
        // Started by a tracing client: trace contexts in the headers of its start, commands and signals.
        'traced-supervisor.json',
        // A run on a thread (earlier turn shown, turn recorded at the pause and the end), and its thread.
        'thread-turn.json',
        'thread-turn-thread.json',
        // A supervisor sharing its thread, and its sub-agent's run, which reads the thread and records nothing.
        'supervisor-thread-context.json',
        'supervisor-thread-context-child.json',
        // A run whose agent keeps a working memory (shown, refused over the bound, updated), and its thread.
        'working-memory.json',
        'working-memory-thread.json',
        // A suspended run on a thread taking the next messages as autoResume updates: refused, then resumed.
        'auto-resume.json',
        // A run shown its thread's task list, whose tools change it; and the thread, which keeps it.
        'thread-tasks.json',
        'thread-tasks-thread.json',
        // The lean history (lean-history patch): local description, memo once a task, slim nextPause, one
        // script step a call; an approval, then continue-as-new with the open stream segment (both runs).
        'lean-continued-first.json',
        'lean-continued.json',
      ]),
    );
  });

  it.each(files)('replays %s without non-determinism', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(new URL(file, dir), 'utf8')));
    // Recorded as run `history-<name>` (see record.ts): child workflow ids are made from it.
    await Worker.runReplayHistory(
      // A worker that does not trace: the spans of a traced run go nowhere, and a replay sends none anyway.
      { workflowBundle: { codePath: inject('workflowBundlePath') }, sinks: workflowSpanSinks(undefined) },
      history,
      `history-${file.replace(/\.json$/, '')}`,
    );
  });
});
