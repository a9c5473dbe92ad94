/** What the parts of agentctl share: its output, its refusals, and what a command gets. */
import type { Command } from 'commander';
import type { AgentClient } from '../client/agent-client.js';

export interface AgentctlIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const defaultIo: AgentctlIo = {
  out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
  err: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
};

/** A refusal or failure to report in one line, with exit code 1. */
export class Refusal extends Error {}

export interface GlobalOptions {
  as?: string;
  identity?: string;
  signingKey?: string;
  keyId?: string;
  address?: string;
  namespace?: string;
  taskQueue?: string;
  profile?: string;
  codecKeysFile?: string;
  createSearchAttributes?: boolean;
}

/** What every command's action gets: a connected client (made once, on first use) and the printer. */
export interface CommandContext {
  connect: (cmd: Command) => Promise<AgentClient>;
  print: (json: boolean, value: unknown, lines: string[]) => void;
}
