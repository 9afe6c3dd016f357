import { describe, expect, it } from 'vitest';
import { makeManualTimers } from '../../../testkit/manual-clock.ts';
import { makeChunker, type OutChunk } from './chunker.ts';

const make = (coalesceMs = 0, cap = 1 << 30) => {
  const chunks: OutChunk[] = [];
  const clock = makeManualTimers();
  return {
    chunks,
    clock,
    c: makeChunker({ maxBytesPerStream: cap, emit: (x) => chunks.push(x), clock, coalesceMs }),
  };
};

describe('chunker (§4, X4)', () => {
  it('§4: splits at 64 KiB of raw bytes, contiguous seq from 0, exactly one exit last', () => {
    const { chunks, c } = make();
    c.push('stdout', Buffer.alloc(65536 * 2 + 10, 1));
    c.exit(0);
    expect(chunks.map((x) => [x.seq, x.kind, x.bytes])).toEqual([
      [0, 'stdout', 65536],
      [1, 'stdout', 65536],
      [2, 'stdout', 10],
      [3, 'exit', 0],
    ]);
    expect(() => c.exit(0)).toThrow();
    expect(() => c.push('stdout', Buffer.from('x'))).toThrow();
  });

  it('coalesces small writes of one kind within the window, and keeps stdout/stderr order', () => {
    const { chunks, c, clock } = make(5);
    c.push('stdout', Buffer.from('a'));
    c.push('stdout', Buffer.from('b'));
    expect(chunks).toHaveLength(0);
    c.push('stderr', Buffer.from('E')); // a kind switch flushes what came before
    expect(chunks.map((x) => x.kind)).toEqual(['stdout']);
    clock.advance(5);
    expect(
      chunks.map((x) => (x.kind === 'exit' ? '' : Buffer.from(x.b64, 'base64').toString())),
    ).toEqual(['ab', 'E']);
  });

  it('X4: bytes past the per-stream cap are dropped and flagged, the other stream unaffected', () => {
    const { chunks, c } = make(0, 5);
    c.push('stdout', Buffer.from('1234567'));
    c.push('stdout', Buffer.from('89'));
    c.push('stderr', Buffer.from('ok'));
    c.exit(1);
    expect(c.truncated).toEqual({ stdout: true, stderr: false, data: false });
    expect(chunks.map((x) => x.bytes)).toEqual([5, 2, 0]);
  });

  it('base64 is canonical: decoding and re-encoding gives the same text', () => {
    const { chunks, c } = make();
    for (let n = 0; n < 5; n += 1)
      c.push('data', Buffer.from([0xff, 0xfe, 0xfd, 0, 1].slice(0, n + 1)));
    for (const x of chunks)
      if (x.kind !== 'exit') expect(Buffer.from(x.b64, 'base64').toString('base64')).toBe(x.b64);
  });

  it('§4: reads of mixed sizes come out as the same bytes in order, in full 64 KiB chunks until a flush', () => {
    const { chunks, c, clock } = make(5);
    const sizes = [49152, 4096, 4096, 65536, 4096, 65536, 12288, 1, 131072, 100];
    let n = 0;
    const input: Buffer[] = [];
    for (const size of sizes) {
      const b = Buffer.alloc(size);
      for (let i = 0; i < size; i += 1) b[i] = (n + i * 7) & 0xff;
      n += size;
      input.push(b);
      c.push('stdout', b);
    }
    const before = chunks.length;
    clock.advance(5);
    expect(chunks.length).toBe(before + 1);
    c.exit(0);
    const data = chunks.filter((x) => x.kind !== 'exit');
    expect(data.slice(0, -1).every((x) => x.bytes === 65536)).toBe(true);
    expect(data.map((x) => x.seq)).toEqual(data.map((_, i) => i));
    const out = Buffer.concat(data.map((x) => Buffer.from(x.b64, 'base64')));
    expect(out.equals(Buffer.concat(input))).toBe(true);
    expect(data.reduce((s, x) => s + x.bytes, 0)).toBe(n);
  });
});
