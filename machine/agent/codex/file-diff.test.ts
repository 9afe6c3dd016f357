import { describe, expect, it } from 'vitest';
import { changeTitle, unifiedDiff } from './file-diff.ts';

// E10: a change to files is shown as one unified diff, whatever Codex reported per file.

const cwd = '/work/repo';

describe('E10: file changes as a unified diff', () => {
  it('an added file is one hunk of + lines, named relative to the folder', () => {
    const changes = [
      { path: '/work/repo/src/a.txt', kind: { type: 'add' as const }, diff: 'one\ntwo\n' },
    ];
    expect(unifiedDiff(changes, cwd)).toBe(
      '--- /dev/null\n+++ b/src/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n',
    );
    expect(changeTitle(changes, cwd)).toBe('Create src/a.txt');
  });

  it('a deleted file is one hunk of - lines', () => {
    const changes = [
      { path: '/work/repo/old.txt', kind: { type: 'delete' as const }, diff: 'gone\n' },
    ];
    expect(unifiedDiff(changes, cwd)).toBe(
      '--- a/old.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-gone\n',
    );
    expect(changeTitle(changes, cwd)).toBe('Delete old.txt');
  });

  it('an update keeps its hunks under a header; a move names both paths; outside stays absolute', () => {
    const hunk = '@@ -1 +1 @@\n-a\n+b\n';
    const changes = [
      {
        path: '/work/repo/x.ts',
        kind: { type: 'update' as const, move_path: '/work/repo/y.ts' },
        diff: hunk,
      },
      { path: '/etc/hosts', kind: { type: 'update' as const, move_path: null }, diff: hunk },
    ];
    expect(unifiedDiff(changes, cwd)).toBe(
      `--- a/x.ts\n+++ b/y.ts\n${hunk}--- /etc/hosts\n+++ /etc/hosts\n${hunk}`,
    );
    expect(changeTitle(changes, cwd)).toBe('Change 2 files');
  });
});
