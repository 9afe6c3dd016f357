// @ts-check
import tseslint from 'typescript-eslint';
import solid from 'eslint-plugin-solid/configs/typescript';
import globals from 'globals';
import { builtinModules } from 'node:module';

/** Import rules of docs/architecture.md: each folder may reach only the folders named here. */
const FOLDERS = [
  'protocol',
  'page-worker',
  'src',
  'sw',
  'relay',
  'machine',
  'device',
  'bench',
  'scripts',
  'e2e',
  'testkit',
];
/** @param {string[]} allowed @param {string} [name] */
const folderPatterns = (allowed, name = 'This folder') =>
  FOLDERS.filter((f) => !allowed.includes(f)).map((f) => ({
    group: [`**/${f}`, `**/${f}/**`],
    message:
      f === 'testkit'
        ? 'Only tests, test-support, e2e/, bench/ and scripts/ may import testkit/ (see docs/architecture.md).'
        : `${name} may not import from ${f}/ (see docs/architecture.md).`,
  }));
/** @param {object[]} patterns */
const restrict = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
/** @param {string[]} allowed */
const onlyImports = (allowed) => restrict(folderPatterns(allowed));

// A folder's tests, test-support and benchmarks reach what its code reaches plus testkit/ (the one
// Node test kit); its production files never reach testkit/.
const TEST_FILES = ['**/*.test.ts', '**/*.test.tsx', '**/test-support/**', '**/bench/**'];
/**
 * @param {string} folder
 * @param {(allowed: string[]) => object[]} patterns the folder's patterns, given what it may reach
 * @param {string[]} allowed
 * @param {object[]} production patterns for its production files only
 */
const folderRules = (folder, allowed, patterns = (a) => folderPatterns(a), production = []) => [
  {
    files: [`${folder}/**/*.{ts,tsx}`],
    ignores: TEST_FILES,
    rules: restrict([...patterns(allowed), ...production]),
  },
  {
    files: TEST_FILES.map((t) => `${folder}/${t}`),
    rules: restrict(patterns([...allowed, 'testkit'])),
  },
];
/**
 * A folder that runs in the browser too: no Node built-ins, and only the folders allowed.
 * @param {string} folder
 * @param {string[]} allowed
 */
const isomorphic = (folder, allowed) =>
  restrict([
    {
      // Bare names too ('fs', 'crypto', 'fs/promises'): they are Node built-ins all the same.
      group: ['node:*', ...builtinModules.flatMap((m) => [m, `${m}/*`])],
      message: `${folder}/ runs in the browser too: no Node built-ins.`,
    },
    ...folderPatterns(allowed, `${folder}/`),
  ]);

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'dev-dist/',
      '.data/',
      'test-results/',
      'playwright-report/',
      'screenshots/',
      // Written by `codex app-server generate-ts` (the Codex app-server's own protocol types).
      'machine/agent/codex/generated/',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Closed sets are `as const` maps, not enums.' },
      ],
    },
  },
  {
    files: ['protocol/**/*.ts'],
    ignores: ['protocol/**/*.test.ts', 'protocol/test-support/**'],
    rules: isomorphic('protocol', ['protocol']),
  },
  {
    files: ['protocol/**/*.test.ts', 'protocol/test-support/**'],
    rules: onlyImports(['protocol', 'testkit']),
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    ...solid,
    languageOptions: { ...solid.languageOptions, globals: globals.browser },
  },
  // The page and its service worker share one contract (IndexedDB layout, push settings, messages,
  // languages), which itself reads only protocol/.
  {
    files: ['page-worker/**/*.ts'],
    ignores: ['page-worker/**/*.test.ts'],
    rules: isomorphic('page-worker', ['protocol', 'page-worker']),
  },
  {
    files: ['page-worker/**/*.test.ts'],
    rules: onlyImports(['protocol', 'page-worker', 'testkit']),
  },
  ...folderRules('src', ['protocol', 'page-worker', 'src']),
  { files: ['sw/**/*.ts'], languageOptions: { globals: globals.serviceworker } },
  ...folderRules('sw', ['protocol', 'page-worker', 'sw']),
  ...folderRules('relay', ['protocol', 'relay']),
  ...folderRules('device', ['protocol', 'device']),
  // The machine hosts the device lane: it may use device/wire and device/lane, never the executor.
  // Its folders by concern (wire/, links/, phones/, approvals/, sessions/, dispatch/, desk/,
  // agent/) keep these rules at any depth; T4: its production code never reaches its test-support/.
  ...folderRules(
    'machine',
    ['protocol', 'machine', 'device'],
    (allowed) => [
      ...folderPatterns(allowed, 'machine/'),
      {
        // Only device/wire and device/lane: not the executor (folder or file), not an index that
        // could re-export it. A regex, because gitignore-style groups cannot re-include a
        // subfolder of an excluded folder.
        regex: '^(\\.\\./)+device(/(?!(wire|lane)(/|$))|$)',
        message: 'machine/ may use only the device lane and wire.',
      },
    ],
    [
      {
        group: ['**/test-support', '**/test-support/**'],
        message: 'T4: machine/ production code never imports test-support/ (only tests do).',
      },
    ],
  ),
  { files: ['bench/**/*.ts'], rules: onlyImports(['protocol', 'bench', 'testkit']) },
  // The test kit serves every Node folder's tests, so it reaches none of them.
  { files: ['testkit/**/*.ts'], rules: onlyImports(['protocol', 'testkit']) },
  {
    files: [
      'relay/**',
      'machine/**',
      'device/**',
      'bench/**',
      'scripts/**',
      'e2e/**',
      'testkit/**',
      '*.config.{ts,js}',
    ],
    languageOptions: { globals: globals.node },
  },
);
