// Code written for 0.2 imports everything from the root: it still works in 0.3, deprecated.
import { AgentClient, createServerApp, createWorker, EncryptionCodec } from 'durable-agents';

console.log(
  JSON.stringify({
    connect: typeof AgentClient.connect,
    createWorker: typeof createWorker,
    createServerApp: typeof createServerApp,
    codec: new EncryptionCodec({ currentKeyId: 'k1', keys: new Map([['k1', new Uint8Array(32)]]) }).constructor.name,
  }),
);
