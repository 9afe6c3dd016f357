import { describe, expect, it } from 'vitest';
import { MAX_TITLE_CHARS } from '../../protocol/index.ts';
import { titleFrom } from './sessions.ts';

describe('SC4: session titles', () => {
  it('SC4: a long prompt ends in an ellipsis after the last whole word, within the limit', () => {
    const prompt =
      'say: I will look around first, then run the checks. list: . run: printf ok 1 parses';
    const title = titleFrom(prompt);
    expect(title).toBe(
      'say: I will look around first, then run the checks. list: . run: printf ok 1…',
    );
    expect(Array.from(title).length).toBeLessThanOrEqual(MAX_TITLE_CHARS);
  });
  it('SC4: a short prompt is the title on one line; text without spaces is cut with an ellipsis', () => {
    expect(titleFrom('  fix\n the   tests ')).toBe('fix the tests');
    const zh = '整'.repeat(100);
    expect(titleFrom(zh)).toBe(`${'整'.repeat(MAX_TITLE_CHARS - 1)}…`);
  });
});
