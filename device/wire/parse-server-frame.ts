import { Buffer } from 'node:buffer';
import { err, ok, type Result } from '../../protocol/result.ts';
import {
  DEVICE_BYE_REASONS,
  DEVICE_HELLO_REJECT_CODES,
  DEVICE_INSTRUCTION_KINDS,
  DEVICE_PAYLOAD_PARTS,
  DEVICE_SERVER_FRAME_TYPES,
  isMember,
  type DeviceFrameRejectReason,
  type DeviceServerFrameType,
} from './closed-sets.ts';
import {
  isCanonicalGen,
  isObject,
  isSafeInt,
  isStringArray,
  makeShapeCheck,
  SHA256_HEX_PATTERN,
  type Obj,
} from './check.ts';
import { MAX_FRAME_BYTES } from './constants.ts';
import type { DeviceServerFrame } from './frames.ts';
import type { ParseFrameOptions } from './parse-device-frame.ts';

/**
 * Server → device frames, parsed as strictly as the server parses the other direction, so an
 * executor never acts on a half-understood instruction. Same reason codes as §2.4 stage 1.
 * `instruction.args` is only checked to be an object here: parseInstructionArgs judges it per
 * kind, so the executor can still answer `invalid` for the instruction id it received.
 */
export const parseServerFrame = (
  text: string,
  opts: ParseFrameOptions = {},
): Result<DeviceServerFrame, DeviceFrameRejectReason> => {
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
  if (!isMember(DEVICE_SERVER_FRAME_TYPES, v.t)) {
    return err(
      'unknown_type',
      typeof v.t === 'string'
        ? `unknown frame type "${v.t.slice(0, 40)}"`
        : 'frame has no string t',
    );
  }
  const problem = SHAPES[v.t as DeviceServerFrameType](v);
  return problem === null ? ok(v as DeviceServerFrame) : err('bad_shape', `${v.t}: ${problem}`);
};

const idAndGen = (o: Obj) => {
  const c = makeShapeCheck();
  c.gen(o);
  c.nonEmpty(o, 'instructionId');
  return c;
};

const SHAPES: Record<DeviceServerFrameType, (o: Obj) => string | null> = {
  challenge: (o) => {
    const c = makeShapeCheck();
    c.str(o, 'nonce');
    c.int(o, 'protocolVersion', 0);
    return c.problem;
  },
  helloAck: (o) => {
    const c = makeShapeCheck();
    c.need(o.ok === true, 'ok must be true');
    c.int(o, 'heartbeatIntervalMs', 1);
    c.int(o, 'maxInflight', 1);
    c.gen(o);
    c.need(isStringArray(o.pendingInstructions), 'pendingInstructions must be a string[]');
    const w = o.chunkWatermarks;
    c.need(
      isObject(w) && Object.values(w).every((x) => isSafeInt(x, -1)),
      'chunkWatermarks must map instruction ids to integers ≥ -1',
    );
    return c.problem;
  },
  helloReject: (o) => {
    const c = makeShapeCheck();
    c.need(isMember(DEVICE_HELLO_REJECT_CODES, o.code), 'code is not a helloReject code');
    c.int(o, 'minProtocolVersion', 0, true);
    return c.problem;
  },
  instruction: (o) => {
    const c = idAndGen(o);
    c.str(o, 'rootSessionId');
    c.int(o, 'issuedSeq', 0);
    c.need(isMember(DEVICE_INSTRUCTION_KINDS, o.kind), 'kind is not an instruction kind');
    c.need(isObject(o.args), 'args must be an object');
    c.str(o, 'cwd', true);
    c.need(
      o.shellEnv === undefined ||
        (isObject(o.shellEnv) && Object.values(o.shellEnv).every((x) => typeof x === 'string')),
      'shellEnv must map names to strings',
    );
    c.int(o, 'timeoutMs', 1);
    return c.problem;
  },
  payload: (o) => {
    const c = idAndGen(o);
    if (!c.need(isMember(DEVICE_PAYLOAD_PARTS, o.part), 'part is not a payload part'))
      return c.problem;
    if (o.part === 'chunk') {
      c.int(o, 'offset', 0);
      c.b64(o, 'dataB64');
    } else {
      c.int(o, 'totalLen', 0);
      c.need(
        typeof o.sha256 === 'string' && SHA256_HEX_PATTERN.test(o.sha256),
        'sha256 must be 64 lower-case hex digits',
      );
    }
    return c.problem;
  },
  cancel: (o) => idAndGen(o).problem,
  resultAck: (o) => idAndGen(o).problem,
  chunkAck: (o) => {
    const c = idAndGen(o);
    c.int(o, 'upToStreamSeq', -1);
    return c.problem;
  },
  bye: (o) => {
    const c = makeShapeCheck();
    c.need(isCanonicalGen(o.gen), 'gen must be a canonical decimal string');
    c.need(isMember(DEVICE_BYE_REASONS, o.reason), 'reason is not a bye reason');
    return c.problem;
  },
  ping: () => null,
};
