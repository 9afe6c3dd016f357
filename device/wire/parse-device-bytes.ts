import { Buffer } from 'node:buffer';
import { err, ok, type Result } from '../../protocol/result.ts';
import type { DeviceFrameRejectReason } from './closed-sets.ts';
import { MAX_FRAME_BYTES } from './constants.ts';
import type { DeviceFrame } from './frames.ts';
import { parseDeviceFrame, type ParseFrameOptions } from './parse-device-frame.ts';
import { scanDataChunkFrame } from './scan-data-chunk.ts';

/** A parsed device frame; a data chunk (stdout/stderr/data) also carries its decoded bytes. */
export type ParsedDeviceFrame = { readonly frame: DeviceFrame; readonly data?: Buffer };

/**
 * Stage 1 of §2.4 on a text frame's bytes (as the WebSocket delivers them, already checked to be
 * UTF-8): the size cap on the byte count, then a data chunk in the executor's own layout is
 * scanned without JSON.parse (scan-data-chunk.ts), and every other frame goes through
 * `parseDeviceFrame` with the same verdicts as before. Either way a data chunk's base64 is
 * decoded once here, so the lane never decodes it again. With `decodeInPlace` (the caller owns
 * `bytes` and drops the frame text after this) a scanned chunk's data is decoded over the frame's
 * own first bytes instead of into a new Buffer.
 */
export const parseDeviceFrameBytes = (
  bytes: Buffer,
  opts: ParseFrameOptions & { decodeInPlace?: boolean } = {},
): Result<ParsedDeviceFrame, DeviceFrameRejectReason> => {
  const maxBytes = opts.maxBytes ?? MAX_FRAME_BYTES;
  if (bytes.length > maxBytes)
    return err('frame_too_large', `frame is ${bytes.length} bytes, the cap is ${maxBytes}`);
  const scanned = scanDataChunkFrame(bytes, { decodeInPlace: opts.decodeInPlace === true });
  if (scanned !== null) return ok(scanned);
  const parsed = parseDeviceFrame(bytes.toString('utf8'), { maxBytes });
  if (!parsed.ok) return parsed;
  const f = parsed.value;
  // Validated canonical above, so a plain decode gives the same bytes.
  return f.t === 'chunk' && f.kind !== 'exit'
    ? ok({ frame: f, data: Buffer.from(f.dataB64 as string, 'base64') })
    : ok({ frame: f });
};
