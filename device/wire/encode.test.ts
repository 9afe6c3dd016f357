import { describe, expect, it } from 'vitest';
import { encodeDataChunkFrame, encodeExitChunkFrame } from './encode.ts';
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
});
