/**
 * agentctl's audit commands: export runs' receipts as JSON lines, and verify such a file offline (no
 * Temporal: only the file, and the approvers' public keys to check signatures with).
 */
import type { Command } from 'commander';
import type { SignatureCheck } from '../approvals/receipt-verify.js';
import { Refusal, type AgentctlIo, type CommandContext } from './common.js';

interface ExportFlags {
  since?: string;
  until?: string;
  resource?: string;
  out?: string;
}

export function addAuditCommands(program: Command, { connect }: CommandContext, io: AgentctlIo): void {
  const audit = program
    .command('audit')
    .description("export runs' receipts (a hash chain of their decisions) and verify them offline");

  audit
    .command('export')
    .description(
      "write the receipts of runs' decisions as JSON lines: of the runs named, or taken between --since and " +
        '--until in any run (a worker of their agents answers)',
    )
    .argument('[runs...]', 'run ids')
    .option('--since <time>', 'receipts taken at or after this time (ISO 8601), in any run')
    .option('--until <time>', 'with --since: receipts taken before this time (default: now)')
    .option('--resource <id>', 'with --since: only the runs of this resource (tenant)')
    .option('--out <file>', 'write to this file (created; an existing one is refused) rather than stdout')
    .addHelpText(
      'after',
      [
        '',
        'Each line is one receipt; `agentctl audit verify <file>` checks them. Keep the last hash of each run',
        '(verify prints it) to tell later that nothing was cut off the end. Examples:',
        '  agentctl audit export run-42 --out run-42.receipts.jsonl',
        '  agentctl audit export --since 2026-12-01T00:00:00Z --until 2026-12-02T00:00:00Z > day.jsonl',
      ].join('\n'),
    )
    .action(async (runIds: string[], o: ExportFlags, cmd: Command) => {
      if (runIds.length > 0 === (o.since !== undefined)) {
        throw new Refusal('name the runs, or give --since (and --until) for a time range: one of the two');
      }
      if (o.since === undefined && (o.until !== undefined || o.resource !== undefined)) {
        throw new Refusal('--until and --resource go with --since');
      }
      // Refused before anything is read; the file is made only once the receipts are in hand.
      if (o.out) await noFileAt(o.out);
      const { receiptLine } = await import('../approvals/receipts.js');
      const c = await connect(cmd);
      const lines: string[] = [];
      if (o.since !== undefined) {
        const target = {
          since: o.since,
          ...(o.until ? { until: o.until } : {}),
          ...(o.resource ? { resourceId: o.resource } : {}),
        };
        for (const receipt of await c.receipts(target)) lines.push(receiptLine(receipt));
      } else {
        for (const runId of runIds) for (const receipt of await c.receipts({ runId })) lines.push(receiptLine(receipt));
      }
      if (o.out) {
        const out = await openOut(o.out);
        await out.write(lines.map((l) => `${l}\n`).join(''));
        await out.close();
        io.err(`agentctl: ${lines.length} receipts written to ${o.out}`);
      } else if (lines.length > 0) io.out(lines.join('\n'));
    });

  audit
    .command('verify')
    .description(
      'check a file of receipts offline: each hash, each run chained without a gap, and (with --keys) each ' +
        "approver's signature; names the first line that does not verify",
    )
    .argument('<file>', 'the JSON lines `audit export` wrote')
    .option('--keys <file>', "the approvers' public keys, as the workers' DECISION_PUBLIC_KEYS file gives them")
    .option('--partial', "let a run's receipts start after its first (an export of a time range)")
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      [
        '',
        'Exit 0 when every line verifies (it prints each run: receipts, from which seq, the last hash); 1 with',
        'the first line that does not, and why. Without --keys, signatures are counted but not checked.',
      ].join('\n'),
    )
    .action(async (file: string, o: { keys?: string; partial?: boolean; json?: boolean }) => {
      const { readFile } = await import('node:fs/promises');
      const { verifyReceipts } = await import('../approvals/receipt-verify.js');
      const read = (path: string, what: string) =>
        readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
          throw new Refusal(`${what} ${path}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
        });
      const text = await read(file, 'cannot read');
      const check = o.keys ? await signatureCheck(await read(o.keys, 'cannot read the keys file')) : undefined;
      const result = verifyReceipts(text.split('\n'), {
        ...(check ? { checkSignature: check } : {}),
        partial: o.partial ?? false,
      });
      if (o.json) io.out(JSON.stringify(result, null, 2));
      else {
        for (const run of result.runs) {
          const signed = run.signed === 0 ? '' : `, ${run.signed} signed (${run.signaturesChecked} checked)`;
          const ruled = run.byRules === 0 ? '' : `, ${run.byRules} by approval rules`;
          io.out(`${run.runId}: ${run.receipts} receipts from seq ${run.from}${signed}${ruled}, last hash ${run.head}`);
        }
      }
      if (!result.ok) {
        const where = result.runId === undefined ? '' : ` (run ${result.runId}, seq ${result.seq})`;
        throw new Refusal(`${file} line ${result.line}${where} does not verify: ${result.reason}`);
      }
      if (!o.json) {
        const receipts = result.runs.reduce((n, r) => n + r.receipts, 0);
        io.out(`verified: ${receipts} receipts of ${result.runs.length} runs`);
      }
    });
}

/** Refuses a path where a file is: an export never overwrites an earlier one. */
async function noFileAt(path: string): Promise<void> {
  const { access } = await import('node:fs/promises');
  const exists = await access(path).then(
    () => true,
    () => false,
  );
  if (exists) throw new Refusal(`--out ${path}: the file exists; name a new one`);
}

/** A file that must not exist yet: an export never overwrites an earlier one. */
async function openOut(path: string) {
  const { open } = await import('node:fs/promises');
  return open(path, 'wx').catch((err: NodeJS.ErrnoException) => {
    throw new Refusal(`--out ${path}: ${err.code === 'EEXIST' ? 'the file exists; name a new one' : err.message}`);
  });
}

/** Checks signatures with the keys file's Ed25519 keys; a key bound to a principal signs only as it. */
export async function signatureCheck(text: string): Promise<SignatureCheck> {
  const { readDecisionKeys } = await import('../connection/decision-keys.js');
  const { createPublicKey, verify } = await import('node:crypto');
  const read = readDecisionKeys(text);
  if ('problem' in read) throw new Refusal(`--keys: ${read.problem}`);
  const keys = new Map(
    Object.entries(read.keys).map(([keyId, entry]) => {
      const pem = typeof entry === 'string' ? entry : entry.publicKey;
      try {
        return [keyId, { key: createPublicKey(pem), owner: typeof entry === 'string' ? undefined : entry.principal }];
      } catch {
        throw new Refusal(`--keys: key "${keyId}" is not a public key in PEM`);
      }
    }),
  );
  return (keyId, signed, value, principal) => {
    const known = keys.get(keyId);
    if (!known) return 'is by a key the keys file does not have';
    const owner = known.owner;
    if (owner && owner.id !== principal?.id) {
      return `is by ${owner.id}'s key, but the receipt names ${principal?.id ?? 'nobody'}`;
    }
    if (owner && owner.tenant !== principal?.tenant) {
      const tenant = (t: string | undefined) => (t ? `tenant ${t}` : 'no tenant');
      return `is by ${owner.id}'s key, of ${tenant(owner.tenant)}, but the receipt names ${tenant(principal?.tenant)}`;
    }
    return verify(null, Buffer.from(signed), known.key, Buffer.from(value, 'base64')) ? 'valid' : 'does not hold';
  };
}
