// The fast path may decline a valid frame (it falls back to parseClientFrame), but it must never
// accept a frame that parseClientFrame refuses, and what it extracts must be what the parser sees.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseClientFrame } from '../protocol/index.ts';
import { ROOM_START, roomOf, scanFast, scanMsg } from './scan.ts';

const ROOM = 'AbCdEfGh_-12345678901A';
const b = (s: string) => Buffer.from(s, 'utf8');

describe('scanMsg (hot path) agrees with parseClientFrame', () => {
  it.each([
    ['no push', `{"kind":"msg","room":"${ROOM}","payload":"QUJD"}`, null, null],
    ['push null', `{"kind":"msg","room":"${ROOM}","payload":"QUJD","push":null}`, null, null],
    [
      'push with tag',
      `{"kind":"msg","room":"${ROOM}","payload":"QUJD","push":{"payload":"UA==","tag":"t-1"}}`,
      'UA==',
      't-1',
    ],
    [
      'push without tag',
      `{"kind":"msg","room":"${ROOM}","payload":"","push":{"payload":"UA=="}}`,
      'UA==',
      null,
    ],
  ])('accepts the canonical envelope: %s', (_n, text, pushPayload, pushTag) => {
    const s = scanMsg(b(text));
    expect(s).toMatchObject({ pushPayload, pushTag });
    expect(s && roomOf(b(text), s)).toBe(ROOM);
    expect(parseClientFrame(text).ok).toBe(true);
  });

  it.each([
    [
      'a control character in the payload',
      `{"kind":"msg","room":"${ROOM}","payload":"QU\u0001JD"}`,
    ],
    ['a raw newline in the payload', `{"kind":"msg","room":"${ROOM}","payload":"QU\nJD"}`],
    ['an escape in the payload', `{"kind":"msg","room":"${ROOM}","payload":"QU\\"JD"}`],
    ['trailing bytes', `{"kind":"msg","room":"${ROOM}","payload":"QUJD"}x`],
    ['trailing space', `{"kind":"msg","room":"${ROOM}","payload":"QUJD"} `],
    ['a truncated frame', `{"kind":"msg","room":"${ROOM}","payload":"QUJD"`],
    [
      'a duplicate key after push',
      `{"kind":"msg","room":"${ROOM}","payload":"QUJD","push":null,"room":"x"}`,
    ],
    [
      'a non-string push payload',
      `{"kind":"msg","room":"${ROOM}","payload":"QUJD","push":{"payload":1}}`,
    ],
    [
      'a tag with a backslash',
      `{"kind":"msg","room":"${ROOM}","payload":"QUJD","push":{"payload":"UA==","tag":"a\\u0041"}}`,
    ],
  ])('declines %s', (_n, text) => {
    expect(scanMsg(b(text))).toBeNull();
  });

  it('never accepts what the parser refuses, and extracts what the parser sees (property)', () => {
    const alphabet = [...'ABCab09+/=-_"\\{}:,\u0000\u001f \u00e9\n'];
    const piece = fc.oneof(
      fc.constantFrom(
        '{"kind":"msg","room":"',
        ROOM,
        '","payload":"',
        '"',
        '}',
        ',"push":null}',
        ',"push":{"payload":"',
        ',"tag":"',
        '}}',
        'QUJD',
        '==',
      ),
      fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        const s = scanMsg(b(text));
        if (s === null) return;
        const room = roomOf(b(text), s);
        // The relay accepts the room only when its bytes equal a joined (hence valid) room id.
        if (!/^[A-Za-z0-9_-]{8,128}$/.test(room)) return;
        const p = parseClientFrame(text);
        expect(p.ok).toBe(true);
        if (!p.ok || p.value.kind !== 'msg') throw new Error('not a msg');
        expect(room).toBe(p.value.room);
        expect(s.pushPayload).toBe(p.value.push?.payload ?? null);
        expect(s.pushTag).toBe(p.value.push?.tag ?? null);
      }),
      { numRuns: 3_000 },
    );
  });

  it('long payloads: a quote, backslash or control byte anywhere is declined, plain bytes are not (property)', () => {
    // Exercises every path of the SIMD scan (64-byte blocks, 16-byte vectors, the last bytes).
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 700 }),
        fc.nat(),
        fc.constantFrom('"', '\\', '\u0000', '\u001f', '\n', '\u007f', 'é', '+', '='),
        fc.constantFrom('}', ',"push":null}', ',"push":{"payload":"UA=="}}'),
        (n, at, stray, tail) => {
          const chars = [...'A'.repeat(n)];
          if (n > 0) chars[at % n] = stray;
          const text = `{"kind":"msg","room":"${ROOM}","payload":"${chars.join('')}"${tail}`;
          const s = scanMsg(b(text));
          const parsed = parseClientFrame(text);
          if (s !== null) {
            expect(parsed.ok).toBe(true);
            expect(roomOf(b(text), s)).toBe(ROOM);
          }
          if (n === 0 || /^[A-Za-z0-9+/=\u007fé]$/.test(stray)) expect(s).not.toBeNull();
          if (n > 0 && /^["\\\u0000-\u001f]$/.test(stray)) expect(s).toBeNull();
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('scanFast accepts only all-ASCII frames, so a joined room makes them valid UTF-8 unchecked (property)', () => {
    // The relay skips its UTF-8 pass when scanFast > 0 and the room bytes equal a joined id.
    const byte = fc.oneof(
      { weight: 20, arbitrary: fc.constantFrom(0x41, 0x2b, 0x3d, 0x7f) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xff }) },
    );
    fc.assert(
      fc.property(
        fc.array(byte, { maxLength: 300 }),
        fc.constantFrom('"}', '","push":null}'),
        (bytes, tail) => {
          const frame = Buffer.concat([
            b(`{"kind":"msg","room":"${ROOM}","payload":"`),
            Buffer.from(bytes),
            b(tail),
          ]);
          const end = scanFast(frame);
          if (end > 0) {
            expect(frame.subarray(ROOM_START, end).toString('latin1')).toBe(ROOM);
            expect(frame.every((x) => x >= 0x20 && x < 0x80)).toBe(true);
          }
          if (bytes.every((x) => x >= 0x20 && x < 0x80 && x !== 0x22 && x !== 0x5c))
            expect(end).toBeGreaterThan(0);
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('accepts every well-formed canonical frame (property)', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/),
        fc.uint8Array({ maxLength: 300 }),
        fc.option(
          fc.record({
            payload: fc.uint8Array({ maxLength: 50 }),
            tag: fc.option(fc.stringMatching(/^[ -!#-[\]-~]{0,20}$/)),
          }),
        ),
        (room, payload, push) => {
          const frame: Record<string, unknown> = {
            kind: 'msg',
            room,
            payload: Buffer.from(payload).toString('base64'),
          };
          if (push)
            frame.push =
              push.tag === null
                ? { payload: Buffer.from(push.payload).toString('base64') }
                : { payload: Buffer.from(push.payload).toString('base64'), tag: push.tag };
          expect(scanMsg(b(JSON.stringify(frame)))).not.toBeNull();
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
