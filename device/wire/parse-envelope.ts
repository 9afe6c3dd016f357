import { Buffer } from 'node:buffer';
import { err, ok, type Result } from '../../protocol/result.ts';
import { isMember, type DeviceFrameRejectReason } from './closed-sets.ts';
import { isObject, type Obj } from './check.ts';
import { MAX_FRAME_BYTES } from './constants.ts';

export type ParseFrameOptions = { readonly maxBytes?: number };

/**
 * Stage 1 of §2.4, shared by both directions: size on the UTF-8 bytes before parsing, JSON, an
 * object, a known `t`, then the per-type shape check. Unknown extra fields are tolerated
 * (additive compatibility); every named field is strict.
 */
export const makeFrameParser =
  <T extends string, F>(
    types: Readonly<Record<T, T>>,
    shapes: Record<T, (o: Obj) => string | null>,
  ) =>
  (text: string, opts: ParseFrameOptions = {}): Result<F, DeviceFrameRejectReason> => {
    const maxBytes = opts.maxBytes ?? MAX_FRAME_BYTES;
    const size = Buffer.byteLength(text, 'utf8');
    if (size > maxBytes)
      return err('frame_too_large', `frame is ${size} bytes, the cap is ${maxBytes}`);
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      return err('not_json', 'frame is not valid JSON');
    }
    if (!isObject(v)) return err('not_object', 'frame is not a JSON object');
    if (!isMember(types, v.t)) {
      return err(
        'unknown_type',
        typeof v.t === 'string'
          ? `unknown frame type "${v.t.slice(0, 40)}"`
          : 'frame has no string t',
      );
    }
    const problem = shapes[v.t as T](v);
    return problem === null ? ok(v as F) : err('bad_shape', `${v.t}: ${problem}`);
  };
