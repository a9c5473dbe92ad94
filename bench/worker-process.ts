/** A worker for the bench agent in a process of its own, so that its memory can be measured: answers "rss" over IPC. */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createWorker } from '../src/index.js';
import { benchAgent } from './systems.js';

Runtime.install({ logger: new DefaultLogger('WARN') });
const { run } = await createWorker({ agents: [benchAgent], enableScriptedModel: true });
process.on('message', () => process.send!({ rss: process.memoryUsage().rss }));
process.send!({ ready: true });
await run();
process.disconnect();
