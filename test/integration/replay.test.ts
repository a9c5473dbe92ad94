/**
 * Replays the corpus of every release (test/histories/<version>/*.json, made by `npm run record-corpus`)
 * against today's workflow code, so that a change that would break runs any release left in flight fails
 * here: runs of an auto-upgrading workflow (threads) move to new code, and a pinned run moves when an
 * operator moves it (see docs/upgrading.md).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { workflowSpanSinks } from '../../src/tracing/config.js';
import { describe, expect, inject, it } from 'vitest';
import { readCorpus } from '../histories/corpus.js';
import '../helpers.js';

const root = new URL('../histories/', import.meta.url);
const packageVersion = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
/** Every release's corpus (test/unit/replay-corpus.test.ts checks that none is left out). */
const { versions, strayHistories, cases } = readCorpus(fileURLToPath(root));
const filesOf = (version: string): string[] => cases.filter((c) => c.version === version).map((c) => c.file);

describe('replay of recorded histories', () => {
  it('keeps every history in the corpus of a release, and has one for this version', () => {
    // A history outside a version's folder would replay as no release's; record.ts writes into the folder.
    expect(strayHistories).toEqual([]);
    expect(versions).toContain(packageVersion);
    // An empty folder would count as a release's corpus and replay nothing.
    expect(versions.filter((v) => filesOf(v).length === 0)).toEqual([]);
  });

  it('has the histories of 0.1.0 to replay', () => {
    expect(filesOf('0.1.0')).toEqual(
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
      ]),
    );
  });

  it('has the histories of 0.2.0 to replay', () => {
    expect(filesOf('0.2.0')).toEqual(
      expect.arrayContaining([
        // The lean history (lean-history patch): local description, memo once a task, slim nextPause, one
        // script step a call; an approval, then continue-as-new with the open stream segment (both runs).
        'lean-continued-first.json',
        'lean-continued.json',
        // The conversation by reference (conversation-by-reference patch): each model call carries the
        // messages after what the previous one held; an approval, then continue-as-new (both runs).
        'conversation-by-reference-first.json',
        'conversation-by-reference.json',
        // A lean run on a thread: the thread-memory patch asked before the local description.
        'thread-turn.json',
        'thread-turn-thread.json',
      ]),
    );
  });

  it('has the histories of 0.3.0 to replay', () => {
    expect(filesOf('0.3.0')).toEqual(
      expect.arrayContaining([
        // A workflow tool whose workflow suspends: a raw resume its schema refuses, then one that fits,
        // and the workflow run again as a child of its own.
        'workflow-tool-suspend.json',
      ]),
    );
  });

  it('has the histories of 0.4.0 to replay', () => {
    expect(filesOf('0.4.0')).toEqual(
      expect.arrayContaining([
        // The agent's rules allow one call and deny another; a person approves the third (approval-rules),
        // each call having asked the agent's grant book first (standing-grants).
        'approval-rules.json',
        // A call that waits for two approvers: the first is counted, the second makes it run.
        'quorum.json',
        // A call bound to its preview (tool-previews): made before the wait, after the approval, and in the run.
        'tool-preview.json',
        // A call a standing grant approves, and the grant book that made and counted it.
        'standing-grant.json',
        'standing-grant-book.json',
        // The model judge (approval-judge) allows one refund, denies one, and hands one to a person.
        'approval-judge.json',
      ]),
    );
  });

  it.each(cases)('replays $version/$file without non-determinism', async ({ version, file }) => {
    const history = historyFromJSON(JSON.parse(readFileSync(new URL(`${version}/${file}`, root), 'utf8')));
    // Recorded as run `history-<name>` (see record.ts): child workflow ids are made from it.
    await Worker.runReplayHistory(
      // A worker that does not trace: the spans of a traced run go nowhere, and a replay sends none anyway.
      { workflowBundle: { codePath: inject('workflowBundlePath') }, sinks: workflowSpanSinks(undefined) },
      history,
      `history-${file.replace(/\.json$/, '')}`,
    );
  });
});
