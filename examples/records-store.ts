import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

export interface StoredRecord {
  id: string;
  title: string;
}

/** The example's persistent store: one JSON file, written atomically. */
export interface RecordsFile {
  records: StoredRecord[];
  /** One entry per deletion that really happened: the side effect the durability tests count. */
  deletions: Array<{ id: string; idempotencyKey: string; at: string }>;
  /** Results of applied deletions by idempotency key, so a retried execution returns the first result. */
  applied: Record<string, { deleted: string; title: string }>;
  /** Notices sent to records' owners: a side effect with no idempotency key (sending twice sends twice). */
  notices: Array<{ recordId: string; message: string; at: string }>;
}

const SEED: RecordsFile = {
  records: [
    { id: 'r1', title: 'Quarterly report' },
    { id: 'r2', title: 'Old customer list' },
    { id: 'r3', title: 'Meeting notes' },
  ],
  deletions: [],
  applied: {},
  notices: [],
};

/** The store's path: `RECORDS_FILE`, else `.temporal/records.json` in the working directory. */
export function recordsPath(): string {
  return resolve(process.env.RECORDS_FILE ?? '.temporal/records.json');
}

export async function readRecords(path = recordsPath()): Promise<RecordsFile> {
  try {
    return { ...structuredClone(SEED), ...(JSON.parse(await readFile(path, 'utf8')) as Partial<RecordsFile>) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return structuredClone(SEED);
    throw err;
  }
}

export async function writeRecords(data: RecordsFile, path = recordsPath()): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(data, null, 2));
  await rename(tmp, path);
}
