// Rule ids, never issue numbers: a clone of this repository holds neither the issue tracker nor the
// specs folder beside it, so a reference to either is a dead link for the next reader. The rules
// live in docs/ under stable ids (docs/rules.md is the index); this finds what still points out.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What may not appear in a tracked file, each with what to write instead. */
export const STRAY_REF_PATTERNS = [
  { code: 'issue-number', re: /\bissues? #?\d+/i, fix: 'cite the rule id (docs/rules.md)' },
  {
    code: 'outside-path',
    re: /\.\.\/shared\b|\/work\/shared\b/,
    fix: 'point to the rule in docs/ instead of a folder outside the repository',
  },
] as const;

export type StrayRef = { file: string; line: number; code: string; text: string; fix: string };

/** Enough to tell text from binary the way git does: a NUL byte in the first 8000 bytes. */
const BINARY_SNIFF_BYTES = 8000;
const isBinary = (bytes: Buffer) => bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);

/** Every stray reference in one text, with its 1-based line number. */
export function findStrayRefs(file: string, text: string): StrayRef[] {
  const found: StrayRef[] = [];
  text.split('\n').forEach((content, i) => {
    for (const { code, re, fix } of STRAY_REF_PATTERNS) {
      const m = re.exec(content);
      if (m) found.push({ file, line: i + 1, code, text: m[0], fix });
    }
  });
  return found;
}

/** Scans the files git tracks under `root` (not what is merely lying around); skips binaries. */
export function scanTrackedFiles(root: string): StrayRef[] {
  const listed = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' });
  const found: StrayRef[] = [];
  for (const file of listed.split('\0').filter(Boolean)) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(root, file));
    } catch {
      continue; // tracked but deleted in the work tree (or a submodule folder): nothing to read
    }
    if (!isBinary(bytes)) found.push(...findStrayRefs(file, bytes.toString('utf8')));
  }
  return found;
}

export const formatStrayRef = (r: StrayRef) => `${r.file}:${r.line}: "${r.text}": ${r.fix}`;
