/**
 * Checking exported receipts offline (`agentctl audit verify`): each line must be a receipt whose hash
 * is its content's, each run's receipts must follow each other (`seq` one more, `prev` the hash before),
 * and each signature must hold under the approver's public key. Pure: the signature check is passed in.
 */
import { ReceiptSchema, type Receipt } from '../schemas/receipts.js';
import { receiptHash, receiptLine } from './receipts.js';
import { acceptedBindings, signedTextOf } from './signed-decision.js';

/**
 * Checks a receipt's signature: `valid`, `invalid`, `unknown-key` (no key of that id), or the reason the
 * key may not sign for this receipt (a key bound to another principal).
 */
export type SignatureCheck = (
  keyId: string,
  text: string,
  value: string,
  principal: Receipt['principal'],
) => string | 'valid';

/** What a file of receipts showed, per run: how many, from which `seq`, to which head. */
export interface VerifiedRun {
  runId: string;
  receipts: number;
  /** The first receipt's `seq`: 0 when the file has the run's chain from its start. */
  from: number;
  /** The last receipt's hash: compare it with the run's (`agentctl audit export`) to know nothing was cut off. */
  head: string;
  /** Receipts with a signature, and how many of them were checked (all, when keys were given). */
  signed: number;
  /** Receipts of the agent's approval rules' verdicts (no person decided, nobody signed). */
  byRules: number;
  signaturesChecked: number;
}

export type Verification =
  | { ok: true; runs: VerifiedRun[] }
  | {
      ok: false;
      line: number;
      runId: string | undefined;
      seq: number | undefined;
      reason: string;
      runs: VerifiedRun[];
    };

/** The kinds that are a person's (or a client's) decision, signed where the worker takes signed ones only. */
const DECIDED = new Set<Receipt['kind']>(['approve', 'decline', 'resume', 'result', 'resolve']);

/** The text a receipt's signature covers, rebuilt from the receipt. */
export function receiptSignedText(receipt: Receipt): string | undefined {
  const signature = receipt.signature;
  if (!signature || receipt.data === null) return undefined;
  const decision = {
    kind: receipt.kind,
    decisionId: receipt.decisionId,
    fingerprint: signature.fingerprint,
    principalId: receipt.principal?.id ?? null,
    data: receipt.data,
  };
  return signedTextOf(decision, { runId: signature.runId, toolCallId: signature.toolCallId }, signature.expiresAt);
}

/** How to verify: the signature check (without it signatures are counted, not checked), and where runs may start. */
export interface VerifyOptions {
  checkSignature?: SignatureCheck;
  /** Let a run's first receipt in the file be a later one than seq 0 (an export of a time range). */
  partial?: boolean;
}

/**
 * Verifies receipts, one JSON text a line (blank lines skipped), and names the first line that does not
 * verify.
 */
export function verifyReceipts(lines: string[], { checkSignature, partial = false }: VerifyOptions = {}): Verification {
  const runs = new Map<string, VerifiedRun & { decisionIds: Set<string> }>();
  const seen = new Set<string>();
  const summary = (): VerifiedRun[] => [...runs.values()].map(({ decisionIds: _ids, ...run }) => run);
  for (const [index, text] of lines.entries()) {
    if (text.trim() === '') continue;
    const line = index + 1;
    const fail = (reason: string, receipt?: { runId?: unknown; seq?: unknown }) => {
      const runId = typeof receipt?.runId === 'string' ? receipt.runId : undefined;
      const seq = typeof receipt?.seq === 'number' ? receipt.seq : undefined;
      return { ok: false as const, line, runId, seq, reason, runs: summary() };
    };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return fail('not JSON');
    }
    const parsed = ReceiptSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return fail(`not a receipt: ${issue.path.join('.') || 'the line'}: ${issue.message}`, json as object);
    }
    const receipt = parsed.data;
    if (receiptHash(receipt) !== receipt.hash)
      return fail('its hash is not the hash of its content: it was changed', receipt);
    // One way to read each line: a key given twice (JSON.parse keeps the last) is not in the form.
    if (text.trim() !== receiptLine(receipt)) {
      return fail('it is not in the form export writes (canonical JSON: keys sorted, each once, no spaces)', receipt);
    }
    // A receipt's hash covers its run and position: the same hash twice is one receipt given twice.
    if (seen.has(receipt.hash)) return fail('it repeats a receipt given before in the file', receipt);
    seen.add(receipt.hash);
    const run = runs.get(receipt.runId);
    if (run?.decisionIds.has(receipt.decisionId)) {
      return fail(`decision ${JSON.stringify(receipt.decisionId)} is in this run's receipts already`, receipt);
    }
    if (run) {
      if (receipt.seq !== run.from + run.receipts) {
        return fail(
          `seq ${receipt.seq} follows seq ${run.from + run.receipts - 1}: receipts are missing or out of order`,
          receipt,
        );
      }
      if (receipt.prev !== run.head) return fail(`its prev is not the hash of seq ${receipt.seq - 1}`, receipt);
    } else if (receipt.seq === 0 && receipt.prev !== null) {
      return fail('the first receipt of a run (seq 0) has a prev', receipt);
    } else if (receipt.seq > 0 && !partial) {
      const missing = `the run's receipts before seq ${receipt.seq} are not in the file`;
      return fail(`${missing} (for an export of a time range, verify with --partial)`, receipt);
    }
    const signature = receipt.signature;
    let checked = 0;
    // The agent's approval rules decide unsigned; a person's decision must be signed.
    if (!signature && checkSignature && DECIDED.has(receipt.kind) && !receipt.ruling) {
      return fail(
        'it has no signature; with --keys every decision must be signed (verify without --keys for unsigned runs)',
        receipt,
      );
    }
    if (signature?.fingerprint != null && signature.fingerprint !== receipt.fingerprint) {
      return fail("its signature names another call's fingerprint than the receipt", receipt);
    }
    if (signature && checkSignature) {
      const bound = receipt.toolCallId !== null ? acceptedBindings(receipt.runId, receipt.toolCallId) : [];
      if (!bound.some((b) => b.runId === signature.runId && b.toolCallId === signature.toolCallId)) {
        const made = `run ${signature.runId}, call ${signature.toolCallId}`;
        return fail(`its signature was made for ${made}, not for this receipt's run and call`, receipt);
      }
      const signedText = receiptSignedText(receipt);
      if (signedText === undefined) return fail('it has a signature but no data hash to check it against', receipt);
      const verdict = checkSignature(signature.keyId, signedText, signature.value, receipt.principal);
      if (verdict !== 'valid')
        return fail(`its signature (key ${JSON.stringify(signature.keyId)}) ${verdict}`, receipt);
      checked = 1;
    }
    const entry: VerifiedRun & { decisionIds: Set<string> } = run ?? {
      runId: receipt.runId,
      receipts: 0,
      from: receipt.seq,
      head: '',
      signed: 0,
      byRules: 0,
      signaturesChecked: 0,
      decisionIds: new Set<string>(),
    };
    entry.decisionIds.add(receipt.decisionId);
    entry.receipts++;
    entry.head = receipt.hash;
    entry.signed += signature ? 1 : 0;
    entry.byRules += receipt.ruling ? 1 : 0;
    entry.signaturesChecked += checked;
    runs.set(receipt.runId, entry);
  }
  return { ok: true, runs: summary() };
}
