import path from 'node:path';
import type { FileUpdateChange } from './generated/v2/FileUpdateChange.ts';

// E10: a change to files is shown as one unified diff. Codex's `fileChange` item carries, per
// file, the hunks of an update (already unified) but the whole text of an added or deleted file;
// each gets the `---`/`+++` header (paths relative to the session's folder when inside it) and
// added or deleted text becomes one hunk.

const lines = (text: string) => {
  const all = text.split('\n');
  if (all.at(-1) === '') all.pop();
  return all;
};

const shown = (file: string, cwd: string) => {
  const rel = path.relative(cwd, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
};

/** `a/` and `b/` mark paths inside the folder; a path outside it is shown as it is. */
const side = (prefix: 'a/' | 'b/', name: string) => (path.isAbsolute(name) ? name : prefix + name);

function oneFile(c: FileUpdateChange, cwd: string): string {
  const name = shown(c.path, cwd);
  switch (c.kind.type) {
    case 'add': {
      const body = lines(c.diff);
      return [
        '--- /dev/null',
        `+++ ${side('b/', name)}`,
        `@@ -0,0 +1,${body.length} @@`,
        ...body.map((l) => '+' + l),
      ].join('\n');
    }
    case 'delete': {
      const body = lines(c.diff);
      return [
        `--- ${side('a/', name)}`,
        '+++ /dev/null',
        `@@ -1,${body.length} +0,0 @@`,
        ...body.map((l) => '-' + l),
      ].join('\n');
    }
    case 'update': {
      if (c.diff.startsWith('--- ')) return c.diff.trimEnd();
      const to = c.kind.move_path !== null ? shown(c.kind.move_path, cwd) : name;
      return [`--- ${side('a/', name)}`, `+++ ${side('b/', to)}`, c.diff.trimEnd()].join('\n');
    }
  }
}

export function unifiedDiff(changes: readonly FileUpdateChange[], cwd: string): string {
  return changes.map((c) => oneFile(c, cwd)).join('\n') + '\n';
}

/** The card's title for a change: the one file's name, or how many files. */
export function changeTitle(changes: readonly FileUpdateChange[], cwd: string): string {
  if (changes.length === 1) {
    const c = changes[0]!;
    const verb = c.kind.type === 'add' ? 'Create' : c.kind.type === 'delete' ? 'Delete' : 'Edit';
    return `${verb} ${shown(c.path, cwd)}`;
  }
  return `Change ${changes.length} files`;
}
