import { describe, expect, it } from 'vitest';
import { clampText } from './clamp.ts';
import { MAX_PROMPT_BYTES, MAX_PROMPT_CHARS } from './limits.ts';
import { textLimitReason } from './text-limits.ts';

describe('prompt/message limits (spec: ≤ 8192 chars AND ≤ 10KB UTF-8 bytes)', () => {
  it('within both limits: no reason', () => {
    expect(textLimitReason('a'.repeat(MAX_PROMPT_CHARS), 'prompt')).toBeNull();
    expect(textLimitReason('😀'.repeat(2560), 'message')).toBeNull(); // 10240 bytes, 5120 units
  });
  it('one character too many: prompt-too-long-chars / message-too-long-chars', () => {
    expect(textLimitReason('a'.repeat(MAX_PROMPT_CHARS + 1), 'prompt')).toBe(
      'prompt-too-long-chars',
    );
    expect(textLimitReason('a'.repeat(MAX_PROMPT_CHARS + 1), 'message')).toBe(
      'message-too-long-chars',
    );
  });
  it('CJK within the characters but over the bytes: *-too-long-bytes', () => {
    const cjk = '日'.repeat(4000); // 4000 chars, 12000 bytes
    expect(textLimitReason(cjk, 'prompt')).toBe('prompt-too-long-bytes');
    expect(textLimitReason(cjk, 'message')).toBe('message-too-long-bytes');
  });
  it('emoji count as one character each (8192 emoji = 16384 UTF-16 units is not over the chars)', () => {
    expect(textLimitReason('😀'.repeat(MAX_PROMPT_CHARS), 'prompt')).toBe('prompt-too-long-bytes');
  });
  it('what the sender clamps is always accepted', () => {
    const sent = clampText('日'.repeat(9000), { chars: MAX_PROMPT_CHARS, bytes: MAX_PROMPT_BYTES });
    expect(textLimitReason(sent.text, 'prompt')).toBeNull();
  });
});
