import { Buffer, isUtf8 } from 'node:buffer';
import { err, ok, type Result } from '../../protocol/result.ts';
import type { DeviceFrameRejectReason } from './closed-sets.ts';
import { MAX_FRAME_BYTES } from './constants.ts';
import type { DeviceFrame } from './frames.ts';
import { parseDeviceFrame, type ParseFrameOptions } from './parse-device-frame.ts';
import { scanDataChunkFrame } from './scan-data-chunk.ts';

/**
 * The answer for a text frame that is not UTF-8, when the caller asked for the check: a transport
 * error (RFC 6455 §8.1, close 1007), not a stage-1 reason.
 */
export const NOT_UTF8 = {
  ok: false,
  code: 'not_utf8',
  message: 'a text frame must be UTF-8',
} as const;

/** A parsed device frame; a data chunk (stdout/stderr/data) also carries its decoded bytes. */
export type ParsedDeviceFrame = { readonly frame: DeviceFrame; readonly data?: Buffer };

/**
 * Stage 1 of §2.4 on a text frame's bytes: the size cap on the byte count, then a data chunk in the executor's own layout is
 * scanned without JSON.parse (scan-data-chunk.ts), and every other frame goes through
 * `parseDeviceFrame` with the same verdicts as before. Either way a data chunk's base64 is
 * decoded once here, so the lane never decodes it again. With `decodeInPlace` (the caller owns
 * `bytes` and drops the frame text after this) a scanned chunk's data is decoded over the frame's
 * own first bytes instead of into a new Buffer. With `checkUtf8` (the WebSocket server was told to
 * skip its own check) every frame the chunk scan does not accept must be UTF-8, else `NOT_UTF8`.
 */
export const parseDeviceFrameBytes = (
  bytes: Buffer,
  opts: ParseFrameOptions & { decodeInPlace?: boolean; checkUtf8?: boolean } = {},
): Result<ParsedDeviceFrame, DeviceFrameRejectReason> | typeof NOT_UTF8 => {
  const maxBytes = opts.maxBytes ?? MAX_FRAME_BYTES;
  if (bytes.length <= maxBytes) {
    // An accepted chunk is printable ASCII from end to end (scan-data-chunk.ts), so valid UTF-8.
    const scanned = scanDataChunkFrame(bytes, { decodeInPlace: opts.decodeInPlace === true });
    if (scanned !== null) return ok(scanned);
  }
  // The transport's verdict first, as when the WebSocket library checked it before us.
  if (opts.checkUtf8 === true && !isUtf8(bytes)) return NOT_UTF8;
  if (bytes.length > maxBytes)
    return err('frame_too_large', `frame is ${bytes.length} bytes, the cap is ${maxBytes}`);
  const parsed = parseDeviceFrame(bytes.toString('utf8'), { maxBytes });
  if (!parsed.ok) return parsed;
  const f = parsed.value;
  // Validated canonical above, so a plain decode gives the same bytes.
  return f.t === 'chunk' && f.kind !== 'exit'
    ? ok({ frame: f, data: Buffer.from(f.dataB64 as string, 'base64') })
    : ok({ frame: f });
};
