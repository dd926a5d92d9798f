import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

/** Import patterns for every folder and root file of src/ but those named. */
const nodesBut = (...allowed) =>
  readdirSync(new URL('./src', import.meta.url))
    .filter((node) => !allowed.includes(node))
    .flatMap((node) => [`**/${node}`, `**/${node}/**`]);

/** One folder rule of docs/architecture.md as an ESLint config entry. */
const boundary = (files, group, message) => [
  { files: [files], rules: { 'no-restricted-imports': ['error', { patterns: [{ group, message }] }] } },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'data/**', 'bench/results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  // The folder boundaries of src/ (docs/architecture.md), mirrored from test/unit/boundaries.test.ts so an
  // editor shows a crossing as it is typed; the test stays the authority (it also finds cycles).
  ...boundary('src/graph/**', ['**/protocols/**'], 'the engine knows no protocol: graph/ never imports protocols/'),
  ...boundary('src/knowledge/**', ['**/graph/**'], "the store's records are its own: knowledge/ never imports graph/"),
  ...boundary(
    'src/protocols/**',
    ['**/knowledge/**', '**/llm/**', '**/tools/**', '**/graph/**', '!**/graph/contract.ts'],
    'adapters reach the engine only through graph/contract.ts, never knowledge/, llm/ or tools/',
  ),
  ...boundary(
    'src/eval/**',
    ['**/graph/**', '!**/graph/contract.ts'],
    'evaluation is a client of the engine: eval/ reaches graph/ only through graph/contract.ts',
  ),
  ...boundary(
    'src/store/**',
    nodesBut('store', 'identity', 'log.ts', 'config-error.ts'),
    'the run store is a bottom layer: store/ imports only identity/, log.ts and config-error.ts',
  ),
  ...boundary(
    'src/identity/**',
    nodesBut('identity'),
    'caller identity is the bottom layer: identity/ imports nothing of ours',
  ),
  {
    // Import cycles between files of src/, shown in the editor. import-x/no-cycle sees only imports that
    // load code (it skips type-only ones); the boundary test also fails on a type-only cycle.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver()] },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // Type-aware: a promise nobody awaits or handles, or one passed where a plain callback is expected,
    // is a failure nobody hears of (issue 31). `void p` says on purpose; its line says why.
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // The console runs in the browser.
    files: ['console/src/**/*.{ts,tsx}'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        history: 'readonly',
        sessionStorage: 'readonly',
        fetch: 'readonly',
        crypto: 'readonly',
        CSS: 'readonly',
        HTMLElement: 'readonly',
        HashChangeEvent: 'readonly',
        KeyboardEvent: 'readonly',
        TextDecoderStream: 'readonly',
        URLSearchParams: 'readonly',
        requestAnimationFrame: 'readonly',
        cancelAnimationFrame: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
  },
);
