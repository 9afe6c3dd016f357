import { describe, expect, it } from 'vitest';
import {
  dataChunkFrameWriter,
  encodeDataChunkFrame,
  encodeDataChunkFrameBytes,
  encodeExitChunkFrame,
} from './encode.ts';
import { parseDeviceFrame } from './parse-device-frame.ts';

describe('chunk frame encoders', () => {
  it('the concatenating encoder produces exactly the JSON of the frame', () => {
    const f = {
      gen: '12',
      instructionId: 'ins_"x',
      streamSeq: 4,
      kind: 'stdout' as const,
      dataB64: 'aGk=',
    };
    const text = encodeDataChunkFrame(f);
    expect(JSON.parse(text)).toEqual({ t: 'chunk', ...f });
    const exit = encodeExitChunkFrame({
      gen: '12',
      instructionId: 'ins_a',
      streamSeq: 5,
      exitCode: 3,
    });
    const parsed = parseDeviceFrame(exit);
    expect(parsed.ok && parsed.value).toEqual({
      t: 'chunk',
      gen: '12',
      instructionId: 'ins_a',
      streamSeq: 5,
      kind: 'exit',
      exitCode: 3,
    });
  });

  it('the byte encoder writes exactly the UTF-8 bytes of the concatenating encoder', () => {
    for (const instructionId of ['ins_01J8ZQ4T9X7M3K5N6P8R0S2V4W', 'ins_"x', 'ins_é\\']) {
      const f = {
        gen: '18446744073709551615',
        instructionId,
        streamSeq: 70000,
        kind: 'data' as const,
        dataB64: Buffer.alloc(65536, 9).toString('base64'),
      };
      const utf8 = Buffer.from(encodeDataChunkFrame(f), 'utf8');
      expect(encodeDataChunkFrameBytes(f).equals(utf8)).toBe(true);
      // Into someone else's memory at an offset: exactly those bytes, nothing around them touched.
      const w = dataChunkFrameWriter(f);
      expect(w.length).toBe(utf8.length);
      const out = Buffer.alloc(w.length + 20, 0xee);
      w.write(out, 14);
      expect(out.subarray(14, 14 + w.length).equals(utf8)).toBe(true);
      expect(
        [...out.subarray(0, 14), ...out.subarray(14 + w.length)].every((b) => b === 0xee),
      ).toBe(true);
    }
  });
});
