import {
  DEVICE_BYE_REASONS,
  DEVICE_HELLO_REJECT_CODES,
  DEVICE_INSTRUCTION_KINDS,
  DEVICE_PAYLOAD_PARTS,
  DEVICE_SERVER_FRAME_TYPES,
  isMember,
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
import { makeFrameParser } from './parse-envelope.ts';
import type { DeviceServerFrame } from './frames.ts';

/**
 * Server → device frames, parsed as strictly as the server parses the other direction, so an
 * executor never acts on a half-understood instruction. Same reason codes as §2.4 stage 1.
 * `instruction.args` is only checked to be an object here: parseInstructionArgs judges it per
 * kind, so the executor can still answer `invalid` for the instruction id it received.
 */

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

export const parseServerFrame = makeFrameParser<DeviceServerFrameType, DeviceServerFrame>(
  DEVICE_SERVER_FRAME_TYPES,
  SHAPES,
);
