/**
 * The docs checks of test/unit/docs-code.test.ts, also runnable alone while writing docs:
 * `npx tsx test/docs/check-docs.ts`.
 *
 * Each ```ts block of README.md, CONTRIBUTING.md and docs/ is a module of its own, written to
 * node_modules/.cache/docs-code/ (ignored by git, ESLint, Prettier and `tsc -p .`) and type-checked in one
 * TypeScript program, with `durable-agents` and its subpaths mapped to src/. A block that is a deliberate
 * fragment is marked ```ts fragment and skipped. A block marked ```ts file=agent.ts is written as agent.ts
 * beside its doc's other blocks, which may then import it (`from './agent.js'`).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const root = path.resolve(import.meta.dirname, '../..');
const blocksDir = path.join(root, 'node_modules/.cache/docs-code');

function markdownUnder(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const rel = path.posix.join(dir, name);
    if (statSync(path.join(root, rel)).isDirectory()) return markdownUnder(rel);
    return name.endsWith('.md') ? [rel] : [];
  });
}

const present = (files: string[]) => files.filter((file) => existsSync(path.join(root, file)));
/** The docs whose code is checked. */
export const codeDocs = () => present(['README.md', 'CONTRIBUTING.md', ...markdownUnder('docs')]);
/** The docs whose links are checked. */
export const linkDocs = () => present([...codeDocs(), 'test/README.md']);

const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

export interface Block {
  doc: string;
  /** The block's number among the doc's TypeScript blocks, from 1. */
  index: number;
  /** The line of its opening fence. */
  line: number;
  /** The file name it is written to (```ts file=agent.ts), so that another block of its doc may import it. */
  file?: string;
  code: string;
}

/** The ```ts and ```typescript blocks of a markdown text; those marked `fragment` are counted, not returned. */
export function tsBlocks(doc: string, text: string): { blocks: Block[]; fragments: number } {
  const blocks: Block[] = [];
  let fragments = 0;
  let index = 0;
  let open: { lang: string; info: string; line: number; indent: number; lines: string[] } | undefined;
  text.split('\n').forEach((line, i) => {
    if (!open) {
      const fence = /^(\s*)```\s*([\w-]*)\s*(.*)$/.exec(line);
      if (fence) {
        const [, indent, lang, info] = fence as unknown as [string, string, string, string];
        open = { lang, info, line: i + 1, indent: indent.length, lines: [] };
      }
      return;
    }
    if (/^\s*```\s*$/.test(line)) {
      if (open.lang === 'ts' || open.lang === 'typescript') {
        index += 1;
        const file = /\bfile=([\w.-]+\.ts)\b/.exec(open.info)?.[1];
        if (/\bfragment\b/.test(open.info)) fragments += 1;
        else blocks.push({ doc, index, line: open.line, ...(file ? { file } : {}), code: open.lines.join('\n') });
      }
      open = undefined;
      return;
    }
    open.lines.push(line.slice(Math.min(open.indent, line.length - line.trimStart().length)));
  });
  return { blocks, fragments };
}

/**
 * What a block may use without declaring it: the reader's own functions that a block only calls. A
 * global script (no import or export), so that each block stays a module of its own.
 */
const preamble = `
declare function tellTheApprovers(payload: import('durable-agents').WebhookPayload): Promise<void>;
declare function fetchWeather(
  city: string,
  options?: { signal?: AbortSignal },
): Promise<{ city: string; temperatureC: number; conditions: string }>;
declare function drawChart(series: number[]): Promise<{ caption: string; url: string }>;
declare function download(url: string): Promise<string[]>;
declare function batches<T>(rows: T[]): T[][];
declare function save(rows: string[]): Promise<void>;
declare const crm: {
  customer(id: string): Promise<{ ssn: string }>;
  lookup(query: string, options: { as: string }): Promise<string>;
};
declare const audit: { write(entry: object): void };
declare const shellTool: import('durable-agents').AnyTool;
declare const refundTool: import('durable-agents').AnyTool;
declare const weatherTool: import('durable-agents').AnyTool;
declare const weatherAgent: import('durable-agents').Agent;
declare const bankAgent: import('durable-agents').Agent;
declare const researcher: import('durable-agents').Agent;
declare const writer: import('durable-agents').Agent;
`;

const entries: Record<string, string> = {
  'durable-agents': 'src/index.ts',
  'durable-agents/worker': 'src/worker/index.ts',
  'durable-agents/client': 'src/client/index.ts',
  'durable-agents/server': 'src/server/index.ts',
  'durable-agents/codec': 'src/codec/index.ts',
  'durable-agents/workflow': 'src/workflow.ts',
  'durable-agents/tracing': 'src/tracing/index.ts',
  'durable-agents/testing': 'src/testing/index.ts',
};

/** Type-checks every block in one program; returns one message per error, naming doc, block and line. */
export function checkCode(): { blocks: number; fragments: number; errors: string[] } {
  const blocks: Block[] = [];
  let fragments = 0;
  for (const doc of codeDocs()) {
    const found = tsBlocks(doc, read(doc));
    blocks.push(...found.blocks);
    fragments += found.fragments;
  }
  rmSync(blocksDir, { recursive: true, force: true });
  mkdirSync(blocksDir, { recursive: true });
  const byFile = new Map<string, Block>();
  for (const block of blocks) {
    // A folder per doc: a block imports another of its doc by the file name it gives (`./agent.js`).
    const dir = path.join(blocksDir, block.doc.replace(/[/.]/g, '_'));
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, block.file ?? `block-${String(block.index).padStart(2, '0')}.ts`);
    if (byFile.has(file)) throw new Error(`${block.doc}: two blocks are written to ${block.file}`);
    writeFileSync(file, `${block.code}\n\nexport {};\n`);
    byFile.set(file, block);
  }
  const preambleFile = path.join(blocksDir, 'preamble.d.ts');
  writeFileSync(preambleFile, preamble);

  const paths = Object.fromEntries(
    Object.entries(entries)
      .filter(([, file]) => existsSync(path.join(root, file)))
      .map(([name, file]) => [name, [path.join(root, file)]]),
  );
  const program = ts.createProgram([preambleFile, ...byFile.keys()], {
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.esnext.d.ts', 'lib.dom.d.ts'],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    esModuleInterop: true,
    skipLibCheck: true,
    resolveJsonModule: true,
    noEmit: true,
    types: ['node'],
    typeRoots: [path.join(root, 'node_modules/@types')],
    paths,
  });
  const checker = program.getTypeChecker();
  const errors = [...byFile.keys(), preambleFile].flatMap((file) => {
    const source = program.getSourceFile(file)!;
    const block = byFile.get(file);
    const found = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
      ...deprecatedUses(checker, source),
    ];
    return found.map((d) => {
      const { line } = source.getLineAndCharacterOfPosition(d.start ?? 0);
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n').slice(0, 3).join('\n    ');
      const where = block
        ? `${block.doc}:${block.line + 1 + line} (block ${block.index}): ${block.code.split('\n')[line]?.trim()}`
        : 'the preamble';
      return `${where}\n    ${message}`;
    });
  });
  return { blocks: blocks.length, fragments, errors };
}

/**
 * The uses of a deprecated name in a block (the 0.2 names the root still exports, the client's 0.2 decision
 * methods): the docs show the API of this release only. A name is deprecated when a declaration it
 * resolves to has a `@deprecated` tag; a call is checked by the overload it resolves to.
 */
function deprecatedUses(checker: ts.TypeChecker, source: ts.SourceFile): ts.Diagnostic[] {
  const found: ts.Diagnostic[] = [];
  const deprecated = (declaration: ts.Declaration | undefined) =>
    !!declaration && ts.getJSDocDeprecatedTag(declaration) !== undefined;
  const visit = (node: ts.Node): void => {
    let name: ts.Node | undefined;
    if (ts.isImportSpecifier(node)) name = node.propertyName ?? node.name;
    else if (ts.isPropertyAccessExpression(node)) name = node.name;
    if (name) {
      let symbol = checker.getSymbolAtLocation(name);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      const call = ts.isCallExpression(node.parent) && node.parent.expression === node ? node.parent : undefined;
      const declarations = call
        ? [checker.getResolvedSignature(call)?.declaration as ts.Declaration | undefined]
        : (symbol?.declarations ?? []);
      if (declarations.length > 0 && declarations.every(deprecated)) {
        found.push({
          category: ts.DiagnosticCategory.Error,
          code: 6385,
          file: source,
          start: name.getStart(source),
          length: name.getWidth(source),
          messageText: `'${name.getText(source)}' is deprecated: use this release's API (its @deprecated note says which)`,
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** GitHub's anchors for a markdown text's headings: lower case, punctuation dropped, spaces to hyphens. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence;
    const heading = !fence && /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every relative link of the docs that names a file or a heading that does not exist. */
export function brokenLinks(): string[] {
  const broken: string[] = [];
  for (const doc of linkDocs()) {
    let fence = false;
    read(doc)
      .split('\n')
      .forEach((line, i) => {
        if (/^\s*```/.test(line)) fence = !fence;
        if (fence) return;
        for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = match[1]!;
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
          const [file, anchor] = target.split('#') as [string, string | undefined];
          const resolved = file === '' ? doc : path.posix.normalize(path.posix.join(path.posix.dirname(doc), file));
          const where = `${doc}:${i + 1}: ${target}`;
          if (!existsSync(path.join(root, resolved))) broken.push(`${where} (no file ${resolved})`);
          else if (anchor && resolved.endsWith('.md') && !anchors(read(resolved)).has(anchor)) {
            broken.push(`${where} (no heading #${anchor} in ${resolved})`);
          }
        }
      });
  }
  return broken;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const links = brokenLinks();
  const code = checkCode();
  console.log(links.join('\n'));
  console.log(code.errors.join('\n'));
  console.log(
    `${code.blocks} blocks checked, ${code.fragments} fragments; ${code.errors.length} errors, ${links.length} broken links`,
  );
}
