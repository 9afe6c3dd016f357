import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeDataChunkFrame, encodeDataChunkFrameBytes } from './encode.ts';
import { parseDeviceFrameBytes } from './parse-device-bytes.ts';
import { parseDeviceFrame } from './parse-device-frame.ts';
import { scanDataChunkFrame } from './scan-data-chunk.ts';

const ID = 'ins_01J8ZQ4T9X7M3K5N6P8R0S2V4W';
const frameOf = (raw: Buffer, over: Partial<{ gen: string; streamSeq: number }> = {}) => ({
  gen: over.gen ?? '12',
  instructionId: ID,
  streamSeq: over.streamSeq ?? 3,
  kind: 'stdout' as const,
  dataB64: raw.toString('base64'),
});

/** The byte parser must reach exactly the generic parser's verdict, and decode the same bytes. */
const expectSameVerdict = (text: string) => {
  const generic = parseDeviceFrame(text);
  const bytes = parseDeviceFrameBytes(Buffer.from(text, 'utf8'));
  expect(bytes.ok, text.slice(0, 200)).toBe(generic.ok);
  if (!generic.ok || !bytes.ok) {
    expect(bytes.ok ? null : bytes.code).toBe(generic.ok ? null : generic.code);
    return;
  }
  expect(bytes.value.frame).toEqual(generic.value);
  const f = generic.value;
  if (f.t === 'chunk' && f.kind !== 'exit')
    expect(bytes.value.data?.equals(Buffer.from(f.dataB64 as string, 'base64'))).toBe(true);
  else expect(bytes.value.data).toBeUndefined();
};

/** Decoding over the frame's own bytes changes nothing in the verdict or the values. */
const expectSameInPlace = (text: string) => {
  const copy = Buffer.from(text, 'utf8');
  const inPlace = parseDeviceFrameBytes(copy, { decodeInPlace: true });
  const fresh = parseDeviceFrameBytes(Buffer.from(text, 'utf8'));
  expect(inPlace.ok ? null : inPlace.code).toBe(fresh.ok ? null : fresh.code);
  if (inPlace.ok && fresh.ok) {
    expect(inPlace.value.frame).toEqual(fresh.value.frame);
    expect(inPlace.value.data === undefined).toBe(fresh.value.data === undefined);
    if (fresh.value.data) expect(inPlace.value.data?.equals(fresh.value.data)).toBe(true);
  }
  // Whatever the scan refused is handed on as it arrived.
  if (scanDataChunkFrame(Buffer.from(text, 'utf8')) === null)
    expect(copy.equals(Buffer.from(text, 'utf8'))).toBe(true);
};

describe('§2.4 stage 1 on the frame bytes: the data-chunk fast path', () => {
  it('§4: a chunk in the executor layout is scanned (not JSON-parsed), with the values the generic parser gives and its bytes decoded', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 65536]) {
      const raw = Buffer.alloc(n);
      for (let i = 0; i < n; i += 1) raw[i] = (i * 31 + 7) & 255;
      for (const kind of ['stdout', 'stderr', 'data'] as const) {
        const f = { ...frameOf(raw), kind };
        const bytes = encodeDataChunkFrameBytes(f);
        const scanned = scanDataChunkFrame(bytes);
        expect(scanned?.frame).toEqual({ t: 'chunk', ...f });
        expect(scanned?.data.equals(raw)).toBe(true);
        expectSameVerdict(bytes.toString('utf8'));
        expectSameInPlace(bytes.toString('utf8'));
        const inPlace = scanDataChunkFrame(bytes, { decodeInPlace: true });
        expect(inPlace?.frame).toEqual({ t: 'chunk', ...f });
        expect(inPlace?.data.equals(raw)).toBe(true);
        // The data is a view of the frame's own memory, not a copy.
        if (n > 0) expect(inPlace?.data.buffer).toBe(bytes.buffer);
      }
    }
  });

  it('§4 canonical base64: every sloppy dataB64 is refused bad_shape, exactly as by the generic parser', () => {
    for (const b64 of [
      'AB==',
      'AAB=',
      'aGVsbG8',
      'aGVsbG8==',
      'aGVs\\nbG8=',
      '-_-_',
      'AA=A',
      ' AAAA',
      'A===',
    ]) {
      const text = `{"t":"chunk","gen":"1","instructionId":"${ID}","streamSeq":0,"kind":"stdout","dataB64":"${b64}"}`;
      expect(scanDataChunkFrame(Buffer.from(text))).toBeNull();
      const r = parseDeviceFrameBytes(Buffer.from(text));
      expect(r.ok ? 'ok' : r.code, b64).toBe('bad_shape');
      expectSameVerdict(text);
      expectSameInPlace(text);
    }
  });

  it('§2.4: near-misses of the layout fall back to the generic parser and keep its verdict', () => {
    const head = (gen: string, id: string, seq: string, kind: string) =>
      `{"t":"chunk","gen":${gen},"instructionId":${id},"streamSeq":${seq},"kind":${kind},"dataB64":"aGk="`;
    const cases = [
      head('"01"', `"${ID}"`, '0', '"stdout"') + '}', // non-canonical gen
      head('"18446744073709551616"', `"${ID}"`, '0', '"stdout"') + '}', // gen over u64
      head('1', `"${ID}"`, '0', '"stdout"') + '}', // gen not a string
      head('"1"', '""', '0', '"stdout"') + '}', // empty id
      head('"1"', '"ins_\\"x"', '0', '"stdout"') + '}', // escaped id: valid, generic path
      head('"1"', '"ins_é"', '0', '"stdout"') + '}', // non-ASCII id: valid, generic path
      head('"1"', `"${ID}"`, '01', '"stdout"') + '}', // leading zero: not JSON
      head('"1"', `"${ID}"`, '-1', '"stdout"') + '}',
      head('"1"', `"${ID}"`, '1e3', '"stdout"') + '}',
      head('"1"', `"${ID}"`, '1.0', '"stdout"') + '}',
      head('"1"', `"${ID}"`, '9007199254740993', '"stdout"') + '}', // not a safe integer
      head('"1"', `"${ID}"`, '0', '"exit"') + '}', // exit with dataB64
      head('"1"', `"${ID}"`, '0', '"stdoutx"') + '}',
      head('"1"', `"${ID}"`, '0', '"stdout"') + ',"exitCode":0}', // extra field: kind/payload clash
      head('"1"', `"${ID}"`, '0', '"stdout"') + ',"extra":1}', // unknown extra field: tolerated
      head('"1"', `"${ID}"`, '0', '"stdout"') + ' }', // whitespace
      head('"1"', `"${ID}"`, '0', '"stdout"') + '}\n',
      head('"1"', `"${ID}"`, '0', '"stdout"') + ',"dataB64":"AB=="}', // duplicate key, last wins
      head('"1"', `"${ID}"`, '0', '"stdout"').replace('"dataB64":"aGk="', '"dataB64":"aGk="}'),
      `{"t":"chunk","gen":"1","instructionId":"${ID}","streamSeq":0,"kind":"exit","exitCode":2}`,
      `{"t":"chunk","gen":"1","instructionId":"${ID}","streamSeq":0,"kind":"stdout","dataB64":"aGk="`,
      `{"t":"chunk","gen":"1","instructionId":"${ID}","streamSeq":0,"kind":"stdout","dataB64":"aGk"}`,
      `{"t":"chunk","gen":"1","instructionId":"${ID}","streamSeq":0,"kind":"stdout","dataB64":""}`,
      `{"t":"chunk"}`,
      '{"t":"heartbeat","gen":"1","seq":0,"inflight":[]}',
    ];
    for (const text of cases) {
      expectSameVerdict(text);
      expectSameInPlace(text);
    }
  });

  it('§2.4: any printable-ASCII edit of a valid chunk frame gets the generic verdict (property)', () => {
    const valid = encodeDataChunkFrame(frameOf(Buffer.from('hello, world')));
    const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
    const edit = fc.record({
      at: fc.nat({ max: valid.length }),
      drop: fc.nat({ max: 3 }),
      insert: fc.array(printable, { maxLength: 3 }).map((a) => a.join('')),
    });
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
        let text = valid;
        for (const e of edits) {
          const at = Math.min(e.at, text.length);
          text = text.slice(0, at) + e.insert + text.slice(at + e.drop);
        }
        expectSameVerdict(text);
        expectSameInPlace(text);
      }),
      { numRuns: 3000 },
    );
  });

  it('§2.1: the size cap is on the frame bytes, before anything else', () => {
    const text = encodeDataChunkFrame(frameOf(Buffer.alloc(3000)));
    const r = parseDeviceFrameBytes(Buffer.from(text), { maxBytes: 4096 });
    expect(r.ok ? 'ok' : r.code).toBe('frame_too_large');
  });
});
