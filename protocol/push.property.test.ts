import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compactPush, parseCompactPush, WHAT_CUT_SUFFIX } from './push.ts';
import { utf8ByteLength } from './bytes.ts';
import { MAX_PUSH_PAYLOAD_BYTES, MAX_PUSH_WHAT_CHARS, MAX_TITLE_CHARS } from './limits.ts';
import { sealedLength } from './seal.ts';

// Text that is cheap in characters but dear in JSON or UTF-8: control characters (6 bytes of
// JSON each), quotes, CJK, astral emoji, lone surrogates.
const unit = fc.constantFrom('a', ' ', '\u0001', '"', '\\', '界', '😀', '\uD800', '\n', '…');
const text = (maxLength: number) => fc.string({ unit, maxLength });
const ident = (maxLength: number) =>
  fc.string({ unit: fc.constantFrom('a', '-', '1'), minLength: 1, maxLength });
const sealed = (p: object) => sealedLength(utf8ByteLength(JSON.stringify(p)));
const codePoints = (s: string) => [...s].length;

describe('E5 + D6: compact push properties', () => {
  it('E5: the sealed push always fits 3 KiB; what ≤ 160 and title ≤ 80 characters; what goes first', () => {
    fc.assert(
      fc.property(
        fc.record({
          title: text(300),
          what: fc.option(text(400), { nil: undefined }),
          sessionId: ident(1100),
          approvalId: fc.option(ident(1100), { nil: undefined }),
        }),
        (f) => {
          let p;
          try {
            p = compactPush({ kind: 'approval', ...f });
          } catch (e) {
            // Only when the ids alone cannot fit.
            expect(e).toBeInstanceOf(RangeError);
            const bare = { v: 1, type: 'push', kind: 'approval', ...f, title: '', what: undefined };
            expect(sealed(bare)).toBeGreaterThan(MAX_PUSH_PAYLOAD_BYTES);
            return;
          }
          expect(sealed(p)).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
          expect(codePoints(p.title)).toBeLessThanOrEqual(MAX_TITLE_CHARS);
          if (p.what !== undefined) {
            expect(codePoints(p.what)).toBeLessThanOrEqual(MAX_PUSH_WHAT_CHARS);
            expect(p.what.trim()).not.toBe('');
            // A cut never leaves the mark alone.
            if (p.what === WHAT_CUT_SUFFIX) expect(f.what).toBe(WHAT_CUT_SUFFIX);
          }
          // The title is shortened below its 80-character clamp only once what is gone.
          const fullTitle = compactPush({ kind: 'approval', sessionId: 's', title: f.title }).title;
          if (p.title !== fullTitle) expect(p.what).toBeUndefined();
          // With ids the parser accepts, the push parses back to itself.
          if (f.sessionId.length <= 128 && (f.approvalId ?? '').length <= 128) {
            const r = parseCompactPush(p);
            if (p.what === undefined || p.what.trim() !== '')
              expect(r).toEqual({ ok: true, value: p });
          }
        },
      ),
      { numRuns: 400 },
    );
  });
  it('E5: a what that was cut ends in the cut mark; one that fit is unchanged', () => {
    fc.assert(
      fc.property(text(400), (what) => {
        const p = compactPush({ kind: 'approval', sessionId: 's-1', title: 't', what });
        if (p.what === undefined) return;
        const whole = what.replace(
          /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
          '\uFFFD',
        );
        if (p.what !== whole) expect(p.what.endsWith(WHAT_CUT_SUFFIX)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
