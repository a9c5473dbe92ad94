#!/usr/bin/env node
// The agentctl executable: runs the TypeScript source through tsx (see src/client/agentctl.ts).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/client/agentctl.ts');
process.exitCode = await main(process.argv.slice(2));
