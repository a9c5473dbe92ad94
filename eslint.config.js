// Lint, and the workflow sandbox boundary: code that runs in Temporal's deterministic workflow sandbox
// (and everything it imports) cannot import Node built-ins, I/O libraries or activity implementations.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Everything the workflow bundle may load: the workflows and the pure code they use, the failure converter,
 * and durable-agents/workflow (src/workflow.ts), the entry a user's workflow code imports.
 */
const SANDBOX = [
  'src/workflows/**/*.ts',
  'src/protocol/**/*.ts',
  'src/approvals/**/*.ts',
  'src/schemas/**/*.ts',
  'src/errors.ts',
  'src/errors/**/*.ts',
  'src/codec/failure-converter.ts',
  'src/workflow.ts',
];

const sandboxMessage =
  'Workflow code runs in the deterministic sandbox: no Node APIs, no I/O. Do it in an activity (src/worker/).';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'lib/**',
      'test/consumer/**',
      '.temporal/**',
      'bench/results/**',
      'docs/api/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Prettier wraps code at 120; this holds strings and comments to it too.
      'max-len': ['error', { code: 120, ignoreUrls: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // A file of src/ that grows past 300 lines splits by what it holds (docs/architecture.md, "The map").
    files: ['src/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 300 }] },
  },
  {
    // The library never calls what it keeps only for one minor version (its 0.2 names, see CHANGELOG.md):
    // those aliases are not loaded by every entry.
    files: ['src/**/*.ts', 'examples/**/*.ts'],
    rules: { '@typescript-eslint/no-deprecated': 'error' },
  },
  {
    // The reference pages' samples, copied verbatim: one declares a stream it never reads.
    files: ['test/fixtures/mastra-samples/approval/[0-9]*.ts'],
    rules: { '@typescript-eslint/no-unused-vars': 'off' },
  },
  {
    // Tests quote long messages whole.
    files: ['test/**/*.ts'],
    rules: {
      'max-len': [
        'error',
        { code: 120, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true },
      ],
    },
  },
  {
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // The inbox's and the chat page's scripts run in the browser.
    files: ['src/server/inbox/**/*.js', 'src/server/chat/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'document',
          'location',
          'sessionStorage',
          'fetch',
          'URLSearchParams',
          'AbortController',
          'setTimeout',
          'TextDecoderStream',
          'clearTimeout',
          'crypto',
          'history',
          'ReadableStream',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // Node's ESM sees only a CommonJS package's default export (tsx and the bundles are laxer, so a
    // named import passes the tests in-process and fails in a real worker process). Tests run in-process.
    files: ['src/**/*.ts', 'examples/**/*.ts', 'bench/**/*.ts'],
    ignores: SANDBOX,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@temporalio/proto',
              importNames: ['temporal', 'google', 'coresdk'],
              allowTypeImports: true,
              message: "CommonJS: import proto from '@temporalio/proto', then proto.temporal...",
            },
          ],
        },
      ],
    },
  },
  {
    files: SANDBOX,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: builtinModules.flatMap((m) => [m, `node:${m}`]).map((name) => ({ name, message: sandboxMessage })),
          patterns: [
            {
              group: ['@temporalio/activity', '@temporalio/client', '@temporalio/worker', '@temporalio/envconfig'],
              message: sandboxMessage,
            },
            { group: ['ai', '@ai-sdk/*', 'hono', 'hono/*', '@hono/*', 'commander'], message: sandboxMessage },
            {
              // Tracing's Node side (exporters, the context manager, the client and worker interceptors).
              group: ['@opentelemetry/exporter-*', '@opentelemetry/context-async-hooks'],
              message: sandboxMessage,
            },
            {
              regex: '^@temporalio/interceptors-opentelemetry(/lib/(client|worker)/.*|/lib/(index|plugin)\\.js)?$',
              message: sandboxMessage,
            },
            {
              // Activity code, the client, the server, the codec, tracing and the worker are Node code; their
              // types are fine.
              regex: '^\\.\\.?/(.*/)?' + '(worker|cli|client|server|tools|agent|codec|tracing|connection)(/|\\.js$)',
              allowTypeImports: true,
              message: sandboxMessage,
            },
          ],
        },
      ],
    },
  },
);
