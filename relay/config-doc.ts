// P7: docs/relay.md's two option tables (Options, Limits), made from the one options table.
// `npx tsx relay/config-doc.ts` rewrites them in place; config.test.ts fails when they differ.
import fs from 'node:fs';
import url from 'node:url';
import { flagUsage, SETTING_SPECS } from './config.ts';

export const DOC_PATH = url.fileURLToPath(new URL('../docs/relay.md', import.meta.url));
const WORDS = new Set(['none', 'on', 'off']);
const code = (s: string) => `\`${s}\``;
const cell = (s: string) => s.replaceAll('|', '\\|');
const shown = (s: string) => (WORDS.has(s) ? s : code(s));
const flags = (s: (typeof SETTING_SPECS)[number]) =>
  flagUsage(s, '').split(' / ').map(code).join(' / ');

export const TABLES = {
  options: () => [
    '| flag | environment variable | default | meaning |',
    '|---|---|---|---|',
    ...SETTING_SPECS.filter((s) => s.over === undefined).map(
      (s) => `| ${flags(s)} | ${code(s.env)} | ${shown(s.shown)} | ${cell(s.help)} |`,
    ),
  ],
  limits: () => [
    '| flag | environment variable | default | limit | over the cap |',
    '|---|---|---|---|---|',
    ...SETTING_SPECS.filter((s) => s.over !== undefined).map(
      (s) =>
        `| ${flags(s)} | ${code(s.env)} | ${shown(s.shown)} | ${cell(s.help)} | ${cell(s.over ?? '')} |`,
    ),
  ],
} as const;
export type TableName = keyof typeof TABLES;

const begin = (name: TableName) =>
  `<!-- ${name}: generated from relay/options.ts by \`npx tsx relay/config-doc.ts\`; edit it there -->`;
const end = (name: TableName) => `<!-- /${name} -->`;

/** The lines between a table's two markers in `doc`, or null when its markers are missing. */
export function tableIn(doc: string, name: TableName): string[] | null {
  const lines = doc.split('\n');
  const from = lines.indexOf(begin(name));
  const to = lines.indexOf(end(name));
  if (from === -1 || to < from) return null;
  return lines.slice(from + 1, to).filter((l) => l !== '');
}

/** `doc` with every table replaced by the generated one. */
export function withTables(doc: string): string {
  let out = doc;
  for (const name of Object.keys(TABLES) as TableName[]) {
    const lines = out.split('\n');
    const from = lines.indexOf(begin(name));
    const to = lines.indexOf(end(name));
    if (from === -1 || to < from) throw new Error(`docs/relay.md has no markers for ${name}`);
    lines.splice(from + 1, to - from - 1, '', ...TABLES[name](), '');
    out = lines.join('\n');
  }
  return out;
}

if (process.argv[1] === url.fileURLToPath(import.meta.url)) {
  fs.writeFileSync(DOC_PATH, withTables(fs.readFileSync(DOC_PATH, 'utf8')));
  console.log('docs/relay.md: option tables regenerated');
}
