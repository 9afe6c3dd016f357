import { utf8ByteLength } from '../../protocol/index.ts';

// U2: the live counter beside every box whose text goes to the machine (the New-session prompt,
// the reply): characters (code points, as the machine counts them) and UTF-8 bytes, and whether
// either is over its limit, so Send can be disabled before anything is lost.
export type TextCount = {
  chars: number;
  bytes: number;
  maxChars: number;
  maxBytes: number;
  over: boolean;
};

export function countText(text: string, maxChars: number, maxBytes: number): TextCount {
  let chars = 0;
  for (const _ of text) chars += 1;
  const bytes = utf8ByteLength(text);
  return { chars, bytes, maxChars, maxBytes, over: chars > maxChars || bytes > maxBytes };
}
