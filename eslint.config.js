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
];
/** @param {string[]} allowed */
const onlyImports = (allowed) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: FOLDERS.filter((f) => !allowed.includes(f)).map((f) => ({
        group: [`**/${f}`, `**/${f}/**`],
        message: `This folder may not import from ${f}/ (see docs/architecture.md).`,
      })),
    },
  ],
});
/**
 * A folder that runs in the browser too: no Node built-ins, and only the folders allowed.
 * @param {string} folder
 * @param {string[]} allowed
 */
const isomorphic = (folder, allowed) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          // Bare names too ('fs', 'crypto', 'fs/promises'): they are Node built-ins all the same.
          group: ['node:*', ...builtinModules.flatMap((m) => [m, `${m}/*`])],
          message: `${folder}/ runs in the browser too: no Node built-ins.`,
        },
        ...FOLDERS.filter((f) => !allowed.includes(f)).map((f) => ({
          group: [`**/${f}`, `**/${f}/**`],
          message: `${folder}/ may not import from ${f}/ (see docs/architecture.md).`,
        })),
      ],
    },
  ],
});

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
    rules: onlyImports(['protocol']),
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
  { files: ['page-worker/**/*.test.ts'], rules: onlyImports(['protocol', 'page-worker']) },
  { files: ['src/**/*.{ts,tsx}'], rules: onlyImports(['protocol', 'page-worker', 'src']) },
  {
    files: ['sw/**/*.ts'],
    languageOptions: { globals: globals.serviceworker },
    rules: onlyImports(['protocol', 'page-worker', 'sw']),
  },
  { files: ['relay/**/*.ts'], rules: onlyImports(['protocol', 'relay']) },
  { files: ['device/**/*.ts'], rules: onlyImports(['protocol', 'device']) },
  { files: ['bench/**/*.ts'], rules: onlyImports(['protocol', 'bench']) },
  // The machine hosts the device lane: it may use device/wire and device/lane, never the executor.
  {
    files: ['machine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...['page-worker', 'src', 'sw', 'relay', 'bench', 'scripts', 'e2e'].map((f) => ({
              group: [`**/${f}`, `**/${f}/**`],
              message: `machine/ may not import from ${f}/ (see docs/architecture.md).`,
            })),
            {
              // Only device/wire and device/lane: not the executor (folder or file), not an index
              // that could re-export it. A regex, because gitignore-style groups cannot re-include
              // a subfolder of an excluded folder.
              regex: '^(\\.\\./)+device(/(?!(wire|lane)(/|$))|$)',
              message: 'machine/ may use only the device lane and wire.',
            },
          ],
        },
      ],
    },
  },
  {
    files: [
      'relay/**',
      'machine/**',
      'device/**',
      'bench/**',
      'scripts/**',
      'e2e/**',
      '*.config.{ts,js}',
    ],
    languageOptions: { globals: globals.node },
  },
);
