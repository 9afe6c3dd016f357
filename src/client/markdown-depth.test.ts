import { describe, expect, it } from 'vitest';
import { parseMarkdown, type Block } from './markdown.ts';
import { MAX_EMPHASIS_DELIMITERS, MAX_NESTING, limitNesting } from './markdown-depth.ts';

// F1: no line opens more than MAX_NESTING quotes and lists; the deeper levels are plain text.

const SIZE_BYTES = 64 * 1024;
const oneLine = (unit: string) => unit.repeat(Math.floor((SIZE_BYTES - 5) / unit.length)) + ' deep';

/** The deepest quote/list nesting of a tree. */
function depth(blocks: readonly Block[]): number {
  let d = 0;
  for (const b of blocks) {
    if (b.t === 'quote') d = Math.max(d, 1 + depth(b.children));
    if (b.t === 'list') d = Math.max(d, 1 + Math.max(0, ...b.items.map(depth)));
  }
  return d;
}
/** The text a reader sees (text nodes joined). */
const text = (blocks: readonly Block[]): string =>
  [...JSON.stringify(blocks).matchAll(/"text":"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]).join('');

describe('F1: hostile nesting cannot overflow the Markdown renderer', () => {
  it.each([
    ['quotes', oneLine('>')],
    ['spaced quotes', oneLine('> ')],
    ['lists', oneLine('- ')],
    ['ordered lists', oneLine('1. ')],
    ['quotes and lists', oneLine('> - ')],
    ['lists, quotes and ordered lists', oneLine('- > 1) ')],
  ])(
    'F1: 64 KiB of nested %s parse without throwing, at most MAX_NESTING deep, the text kept',
    (_name, src) => {
      expect(src.length).toBeGreaterThan(SIZE_BYTES - 8);
      const blocks = parseMarkdown(src);
      expect(depth(blocks)).toBeLessThanOrEqual(MAX_NESTING);
      expect(text(blocks)).toContain('deep');
    },
  );

  it('F1: an indented staircase of 64 KiB is cut at MAX_NESTING levels, its deeper items shown as text', () => {
    let src = '';
    for (let i = 0; src.length < SIZE_BYTES; i++) src += `${' '.repeat(i * 2)}- item ${i}\n`;
    const blocks = parseMarkdown(src);
    expect(depth(blocks)).toBe(MAX_NESTING);
    expect(text(blocks)).toContain('item 200');
  });

  it('F1: nesting within the limit is untouched; past it the marker is escaped, not dropped', () => {
    const within = `${'> '.repeat(MAX_NESTING)}x`;
    expect(limitNesting(within)).toBe(within);
    expect(depth(parseMarkdown(within))).toBe(MAX_NESTING);
    expect(limitNesting(`${'>'.repeat(MAX_NESTING + 2)}x`)).toBe(`${'>'.repeat(MAX_NESTING)}\\>>x`);
    // An ordered marker escapes its punctuation (a backslash before a digit would show).
    expect(limitNesting('- - 1. x')).toBe('- - 1\\. x');
    const shown = parseMarkdown(`${'>'.repeat(MAX_NESTING + 3)} deep`);
    expect(text(shown)).toContain('>>> deep');
  });

  it('F1: code in a top-level fence and thematic breaks are left as they are', () => {
    const code = ['```', `${'>'.repeat(40)} prompt`, `${' '.repeat(80)}- yaml`, '```'].join('\n');
    expect(limitNesting(code)).toBe(code);
    expect(limitNesting('- - - - - - - - - - - - - -')).toBe('- - - - - - - - - - - - - -');
  });

  it('F1: a fence inside a list item that ends early does not shield the lines after it', () => {
    const src = ['- a', '  ```', oneLine('>')].join('\n');
    expect(() => parseMarkdown(src)).not.toThrow();
    expect(depth(parseMarkdown(src))).toBeLessThanOrEqual(MAX_NESTING);
  });

  it.each([
    ['stars around a word', `${'*'.repeat(SIZE_BYTES / 2 - 1)}a${'*'.repeat(SIZE_BYTES / 2 - 1)}`],
    [
      'underscores around a word',
      `${'_'.repeat(SIZE_BYTES / 2 - 1)}a${'_'.repeat(SIZE_BYTES / 2 - 1)}`,
    ],
    ['openers then closers', `${'*a '.repeat(SIZE_BYTES / 6)}${'a* '.repeat(SIZE_BYTES / 6)}`],
    [
      'openers then closers over lines',
      `${'**a\n'.repeat(SIZE_BYTES / 8)}${'a**\n'.repeat(SIZE_BYTES / 8)}`,
    ],
  ])(
    'F1: 64 KiB of nested emphasis (%s) parses without throwing and reads as its text',
    (_n, src) => {
      const blocks = parseMarkdown(src);
      const shown = text(blocks);
      // Every delimiter is still there to read, as emphasis or as text.
      const delimiters = (x: string) => x.replace(/[^*_]/g, '').length;
      expect(delimiters(shown)).toBeGreaterThanOrEqual(delimiters(src) - MAX_EMPHASIS_DELIMITERS);
      expect(shown).not.toMatch(/[\uE000\uE001]/);
    },
  );

  it('F1: emphasis within the limit is untouched; list markers, code spans and escapes do not count', () => {
    const bold = Array.from({ length: MAX_EMPHASIS_DELIMITERS / 4 }, (_, i) => `**w${i}**`).join(
      ' ',
    );
    expect(limitNesting(bold)).toBe(bold);
    const list = Array.from({ length: 40 }, (_, i) => `* item ${i}`).join('\n');
    expect(limitNesting(list)).toBe(list);
    const code = `${bold} \`a*b_c*\` \\* done`;
    expect(limitNesting(code)).toBe(code);
    // A new paragraph has its own allowance.
    expect(limitNesting(`${bold}\n\n${bold}`)).toBe(`${bold}\n\n${bold}`);
    // Past it, the delimiters are plain text that reads the same.
    const over = `${bold} *more*`;
    expect(limitNesting(over)).not.toBe(over);
    const blocks = parseMarkdown(over);
    expect(text(blocks)).toContain('*more*');
  });
});
