import { describe, expect, it } from 'vitest';
import { compactPush, parseCompactPush, pushWhat, WHAT_CUT_SUFFIX } from './push.ts';
import { deriveKey } from './keys.ts';
import { MAX_PUSH_PAYLOAD_BYTES, MAX_PUSH_WHAT_CHARS, MAX_TITLE_CHARS } from './limits.ts';
import { seal } from './seal.ts';

const key = deriveKey(new Uint8Array(32));

describe('compact push (spec "Push variant payloads are compact", D9)', () => {
  it('D9: carries approvalId / questionId and parses back', () => {
    const p = compactPush({
      kind: 'approval',
      sessionId: 's-1',
      title: 'Run bash',
      approvalId: 'a-1',
    });
    expect(p).toEqual({
      v: 1,
      type: 'push',
      kind: 'approval',
      sessionId: 's-1',
      title: 'Run bash',
      approvalId: 'a-1',
    });
    expect(parseCompactPush(p)).toEqual({ ok: true, value: p });
    const q = compactPush({
      kind: 'question',
      sessionId: 's-1',
      title: 'Which?',
      questionId: 'q-1',
    });
    expect(parseCompactPush(q)).toEqual({ ok: true, value: q });
  });

  it('≤ 3KB sealed: a huge title is clamped to 80 characters', () => {
    const p = compactPush({ kind: 'done', sessionId: 's-1', title: '界'.repeat(5000) });
    expect([...p.title]).toHaveLength(MAX_TITLE_CHARS);
    expect(seal(p, key).length).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
  });

  it('≤ 3KB sealed even when JSON escaping inflates the title', () => {
    const p = compactPush({
      kind: 'error',
      sessionId: 'x'.repeat(128),
      title: '\u0001'.repeat(80),
      approvalId: 'a'.repeat(128),
      questionId: 'q'.repeat(128),
    });
    expect(seal(p, key).length).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
  });

  it('refuses an unknown kind as invalid and a non-push type as ignored', () => {
    expect(
      parseCompactPush({ v: 1, type: 'push', kind: 'spam', sessionId: 's', title: 't' }),
    ).toMatchObject({ ok: false, ignored: false, code: 'invalid' });
    expect(parseCompactPush({ v: 1, type: 'session.update', ts: 1 })).toMatchObject({
      ok: false,
      ignored: true,
      code: 'unknown-type',
    });
    expect(parseCompactPush({ v: 2, type: 'push' })).toMatchObject({
      ok: false,
      ignored: true,
      code: 'unknown-version',
    });
  });
});

describe('parseCompactPush: one rejecting test per field', () => {
  const good = {
    v: 1,
    type: 'push',
    kind: 'question',
    sessionId: 's-1',
    title: 'Which?',
    questionId: 'q-1',
  };
  it.each([
    ['kind', { kind: undefined }],
    ['kind', { kind: 'reminder' }],
    ['sessionId', { sessionId: undefined }],
    ['sessionId', { sessionId: '' }],
    ['title', { title: undefined }],
    ['title', { title: 7 }],
    ['approvalId', { approvalId: 5 }],
    ['questionId', { questionId: 'q'.repeat(129) }],
  ])('a bad %s is invalid', (field, patch) => {
    const r = parseCompactPush({ ...good, ...patch });
    expect(r).toMatchObject({ ok: false, ignored: false, code: 'invalid' });
    if (!r.ok) expect(r.message).toContain(field);
  });
  it('not an object is invalid', () => {
    expect(parseCompactPush('push')).toMatchObject({ ok: false, ignored: false, code: 'invalid' });
  });
  it('unknown fields (a future ts, a badge) are tolerated and dropped', () => {
    expect(parseCompactPush({ ...good, ts: 1, badge: 3 })).toEqual({ ok: true, value: good });
  });
  it('every push kind of the spec (with v1.2 question) is accepted', () => {
    for (const kind of ['approval', 'question', 'done', 'error']) {
      expect(parseCompactPush({ ...good, kind }).ok).toBe(true);
    }
  });
  it('compactPush throws only when the ids alone cannot fit (a caller bug)', () => {
    expect(() => compactPush({ kind: 'done', sessionId: 's'.repeat(3000), title: 't' })).toThrow(
      RangeError,
    );
  });
});

describe('E5: a notification that says what it asks', () => {
  const approval = {
    kind: 'approval',
    sessionId: 's-1',
    title: 'Run bash',
    approvalId: 'a-1',
  } as const;
  it('E7: presence is carried and parsed back; anything but true is invalid, as in the request', () => {
    const p = compactPush({ ...approval, presence: true });
    expect(parseCompactPush(p)).toEqual({ ok: true, value: { ...p, presence: true } });
    for (const bad of [false, 'yes', 1])
      expect(parseCompactPush({ ...p, presence: bad })).toMatchObject({
        ok: false,
        code: 'invalid',
      });
  });
  it('E5: what is carried and parsed back', () => {
    const p = compactPush({ ...approval, what: 'Run bash: npm test' });
    expect(p.what).toBe('Run bash: npm test');
    expect(parseCompactPush(p)).toEqual({ ok: true, value: p });
  });
  it('E5: a what over 160 characters is cut to 160 and ends with the cut mark', () => {
    const p = compactPush({ ...approval, what: `Run: ${'界'.repeat(400)}` });
    expect([...p.what!]).toHaveLength(MAX_PUSH_WHAT_CHARS);
    expect(p.what!.endsWith(WHAT_CUT_SUFFIX)).toBe(true);
    expect(compactPush({ ...approval, what: 'x'.repeat(160) }).what).toBe('x'.repeat(160));
  });
  it('E5: a blank what is left out (Allow is offered only beside a shown what)', () => {
    expect('what' in compactPush({ ...approval, what: ' \n ' })).toBe(false);
    expect('what' in compactPush(approval)).toBe(false);
  });
  it('E5: what shrinks (down to nothing) before the title, and the sealed push fits 3 KiB', () => {
    // Escaped control characters make every character cost 6 bytes of JSON; long ids leave
    // room for only part of it.
    const fields = {
      ...approval,
      sessionId: 's'.repeat(900),
      approvalId: 'a'.repeat(900),
      title: 'Run bash',
      what: '\u0001'.repeat(160),
    };
    const p = compactPush(fields);
    expect(seal(p, key).length).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
    expect(p.title).toBe('Run bash');
    expect(p.what!.length).toBeLessThan(160);
    const tight = compactPush({
      ...fields,
      sessionId: 's'.repeat(1150),
      title: '\u0001'.repeat(80),
    });
    expect(seal(tight, key).length).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
    expect('what' in tight).toBe(false);
    expect(tight.title.length).toBeLessThan(80);
  });
  it.each([
    ['over 160 characters', 'x'.repeat(161)],
    ['blank', '  '],
    ['not a string', 5],
  ])('E5: a what %s is invalid', (_w, what) => {
    const r = parseCompactPush({ ...compactPush(approval), what });
    expect(r).toMatchObject({ ok: false, ignored: false, code: 'invalid' });
    if (!r.ok) expect(r.message).toContain('what');
  });
  it('E5: 160 characters of astral emoji (320 UTF-16 units) are within the limit', () => {
    const what = '😀'.repeat(160);
    expect(parseCompactPush({ ...compactPush(approval), what }).ok).toBe(true);
  });
  it('E5: pushWhat joins title and detail and flattens line breaks, so a second line shows', () => {
    expect(pushWhat('Run', 'npm test')).toBe('Run: npm test');
    expect(pushWhat('Run bash', 'npm test\nrm -rf ~\t ')).toBe('Run bash: npm test rm -rf ~');
    expect(pushWhat('Which database?')).toBe('Which database?');
    expect(pushWhat('Run', ' \n')).toBe('Run');
    expect(pushWhat('Run', 'a\u001b[2Jb')).toBe('Run: a [2Jb');
  });
});
