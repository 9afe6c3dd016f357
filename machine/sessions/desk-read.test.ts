import { describe, expect, it } from 'vitest';
import { parseDeskRead } from './sessions.ts';

// E10 (desk sessions): a stored read position is parsed at the edge; anything that is not one is
// no position (the session's file is then read from its end: nothing shown twice).

describe('E10: a desk session’s stored read position', () => {
  it('E10 hooks: a stored position is read back as written; a malformed one is no position', () => {
    const kept = {
      file: '/home/me/.claude/projects/x/s.jsonl',
      offset: 42,
      tools: [['t1', 'Bash']],
    };
    expect(parseDeskRead(JSON.stringify(kept))).toEqual(kept);
    expect(parseDeskRead(null)).toBeUndefined();
    expect(parseDeskRead('{not json')).toBeUndefined();
    expect(parseDeskRead(JSON.stringify({ ...kept, offset: -1 }))).toBeUndefined();
    expect(parseDeskRead(JSON.stringify({ ...kept, offset: 1.5 }))).toBeUndefined();
    expect(parseDeskRead(JSON.stringify({ offset: 3, tools: [] }))).toBeUndefined();
    expect(parseDeskRead(JSON.stringify({ ...kept, tools: [['t1'], 7, ['t2', 'Edit']] }))).toEqual({
      ...kept,
      tools: [['t2', 'Edit']],
    });
  });
});
