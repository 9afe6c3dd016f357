import { describe, expect, it } from 'vitest';
import { parseMarkdown, type Block } from './markdown.ts';
import { MAX_NESTING, limitNesting } from './markdown-depth.ts';

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
});
