// The receiving side of the prompt/message limits: the machine refuses an over-long text with a
// visible reason code instead of clamping it silently (senders clamp before sealing).
import { utf8ByteLength } from './bytes.ts';
import type { ReasonCode } from './closed-sets.ts';
import { MAX_FREE_TEXT_BYTES, MAX_PROMPT_BYTES, MAX_PROMPT_CHARS } from './limits.ts';

/** session.message text: the prompt's character limit and the free-text byte limit. */
export const MAX_MESSAGE_CHARS = MAX_PROMPT_CHARS;
export const MAX_MESSAGE_BYTES = MAX_FREE_TEXT_BYTES;

const LIMITS = {
  prompt: [MAX_PROMPT_CHARS, MAX_PROMPT_BYTES, 'prompt-too-long-chars', 'prompt-too-long-bytes'],
  message: [
    MAX_MESSAGE_CHARS,
    MAX_MESSAGE_BYTES,
    'message-too-long-chars',
    'message-too-long-bytes',
  ],
} as const;

/** The reason code for a dispatch prompt or session message over its limit, else null. */
export function textLimitReason(text: string, kind: 'prompt' | 'message'): ReasonCode | null {
  const [chars, bytes, charsReason, bytesReason] = LIMITS[kind];
  if (text.length > chars) {
    let n = 0;
    for (const _ of text) if (++n > chars) return charsReason;
  }
  return utf8ByteLength(text) > bytes ? bytesReason : null;
}
