import { describe, expect, it } from 'vitest';
import { asTyped, singleWord } from './command-line.ts';

// E10: an exec_command card shows the command as the human would type it, not Codex's
// `/bin/bash -lc '…'` wrapper; anything that is not exactly one quoted word is shown whole.

describe('E10: the command as typed', () => {
  it.each([
    ["/bin/bash -lc 'npm test'", 'npm test'],
    ["/bin/bash -lc 'touch '\\''a b.txt'\\'''", "touch 'a b.txt'"],
    ['/bin/bash -lc "echo \\"hi\\" > out.txt"', 'echo "hi" > out.txt'],
    ["bash -lc 'ls -la | wc -l'", 'ls -la | wc -l'],
    ["/bin/sh -c 'make all'", 'make all'],
    ["/usr/bin/zsh -lc 'git status'", 'git status'],
  ])('%s → %s', (wrapped, typed) => {
    expect(asTyped(wrapped)).toBe(typed);
  });

  it.each([
    'npm test',
    "/bin/bash -lc 'npm test' && rm -rf /",
    '/bin/bash -lc "echo $HOME"',
    "/bin/bash -lc ''",
    "/bin/bash -lc 'unterminated",
    "python -c 'print(1)'",
  ])('left whole: %s', (line) => {
    expect(asTyped(line)).toBe(line);
  });

  it('a word with an unquoted space or shell syntax is not one word', () => {
    expect(singleWord('a b')).toBeNull();
    expect(singleWord("'a'b\\ c")).toBe('ab c');
    expect(singleWord('$(id)')).toBeNull();
  });
});
