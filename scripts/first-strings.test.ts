import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import url from 'node:url';
import { describe, expect, it } from 'vitest';
import { enScreens } from '../src/i18n/en-screens.ts';

// A8 (docs/app.md "Size"): the English strings of the screens after the first are a lazy chunk
// (src/i18n/en-screens.ts) loaded with those screens. A module the first screen loads — every
// module src/main.tsx or src/pwa/boot.tsx reaches by static imports — must never use one of
// them, neither literally nor through a key built from a prefix (`t(\`block.${code}\`)`).
const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..');
const ENTRIES = ['src/main.tsx', 'src/pwa/boot.tsx'];
const STATIC_IMPORT =
  /^\s*(?:import|export)\b(?!\s+type\b)[^;'"()=]*?(?:\bfrom\s*)?['"](\.{1,2}\/[^'"]+)['"]/gm;
const DYNAMIC = /import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Every module reached from the entries by static (non-type) imports, with its source. */
function firstModules(): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file) || !existsSync(file) || !/\.tsx?$/.test(file)) return;
    const source = readFileSync(file, 'utf8');
    seen.set(file, source);
    for (const m of source.matchAll(STATIC_IMPORT)) visit(path.resolve(path.dirname(file), m[1]!));
  };
  for (const entry of ENTRIES) visit(path.join(root, entry));
  return seen;
}

describe('A8: the first screen uses only the first chunk of English strings', () => {
  const modules = firstModules();
  const rel = (f: string) => path.relative(root, f);

  it('A8: the walk follows static imports and leaves lazy ones out', () => {
    const names = [...modules.keys()].map(rel);
    expect(names).toContain('src/ui/Inbox.tsx');
    expect(names).toContain('src/i18n/en-first.ts');
    expect(names).not.toContain('src/i18n/en-screens.ts');
    expect(names).not.toContain('src/ui/screens/Settings.tsx');
    const app = modules.get(path.join(root, 'src/ui/App.tsx'))!;
    expect([...app.matchAll(DYNAMIC)].map((m) => m[1])).toContain('./screens/Settings.tsx');
  });

  it('A8: no first-screen module names a key of en-screens.ts', () => {
    const keys = Object.keys(enScreens);
    const used = [...modules].flatMap(([file, source]) =>
      keys
        .filter((k) => source.includes(`'${k}'`) || source.includes(`"${k}"`))
        .map((k) => `${rel(file)}: ${k}`),
    );
    expect(used).toEqual([]);
  });

  it('A8: no first-screen module builds a key whose prefix en-screens.ts holds', () => {
    const prefixes = [...modules].flatMap(([file, source]) =>
      [...source.matchAll(/`([a-zA-Z]+(?:\.[a-zA-Z]+)*\.)\$\{/g)].map(
        (m) => [file, m[1]!] as const,
      ),
    );
    const clash = prefixes.flatMap(([file, prefix]) =>
      Object.keys(enScreens)
        .filter((k) => k.startsWith(prefix))
        .map((k) => `${rel(file)}: ${k}`),
    );
    expect(clash).toEqual([]);
  });
});
