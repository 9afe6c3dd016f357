import {
  DEVICE_CHUNK_KINDS,
  DEVICE_FRAME_TYPES,
  DEVICE_GOODBYE_REASONS,
  isMember,
  type DeviceFrameType,
} from './closed-sets.ts';
import { isObject, isStringArray, makeShapeCheck, type Obj } from './check.ts';
import { makeFrameParser } from './parse-envelope.ts';
import type { DeviceFrame } from './frames.ts';
import { parseOutcome } from './outcome.ts';

export type { ParseFrameOptions } from './parse-envelope.ts';

/** What the lane feeds in for a binary WebSocket frame: always `not_json` (§2.4). */
export const BINARY_FRAME_REJECT = {
  ok: false,
  code: 'not_json',
  message: 'binary WebSocket frames are not accepted',
} as const;

const SHAPES: Record<DeviceFrameType, (o: Obj) => string | null> = {
  hello: (o) => {
    const c = makeShapeCheck();
    c.int(o, 'protocolVersion', 0);
    c.nonEmpty(o, 'deviceId');
    c.str(o, 'epoch');
    c.str(o, 'signatureB64');
    const p = o.platform;
    c.need(
      isObject(p) &&
        typeof p.os === 'string' &&
        typeof p.arch === 'string' &&
        typeof p.executorVersion === 'string',
      'platform must be { os, arch, executorVersion } strings',
    );
    c.str(o, 'workspaceRoot');
    c.str(o, 'pathFlavor');
    c.need(isStringArray(o.supports), 'supports must be a string[]');
    c.need(
      o.resuming === undefined || (isObject(o.resuming) && c.int(o.resuming, 'unackedResults', 0)),
      'resuming must be { unackedResults: int ≥ 0 }',
    );
    return c.problem;
  },
  generationAck: (o) => {
    const c = makeShapeCheck();
    c.gen(o);
    return c.problem;
  },
  heartbeat: (o) => {
    const c = makeShapeCheck();
    c.gen(o);
    c.int(o, 'seq', 0);
    c.need(isStringArray(o.inflight), 'inflight must be a string[]');
    return c.problem;
  },
  result: (o) => {
    const c = makeShapeCheck();
    c.gen(o);
    c.nonEmpty(o, 'instructionId');
    c.int(o, 'deviceSeq', 0);
    if (c.problem !== null) return c.problem;
    const outcome = parseOutcome(o.outcome);
    return outcome.ok ? null : outcome.message;
  },
  chunk: (o) => {
    const c = makeShapeCheck();
    c.gen(o);
    c.nonEmpty(o, 'instructionId');
    c.int(o, 'streamSeq', 0);
    if (!c.need(isMember(DEVICE_CHUNK_KINDS, o.kind), 'kind is not a chunk kind')) return c.problem;
    if (o.kind === 'exit') {
      c.need(o.dataB64 === undefined, 'an exit chunk must not carry dataB64');
      c.int(o, 'exitCode', Number.MIN_SAFE_INTEGER);
    } else {
      c.need(o.exitCode === undefined, `a ${String(o.kind)} chunk must not carry exitCode`);
      c.b64(o, 'dataB64');
    }
    return c.problem;
  },
  goodbye: (o) => {
    const c = makeShapeCheck();
    c.gen(o);
    c.need(isMember(DEVICE_GOODBYE_REASONS, o.reason), 'reason is not a goodbye reason');
    c.int(o, 'graceMs', 0, true);
    return c.problem;
  },
};

/** Stage 1 of §2.4 for device → server frames (see parse-envelope.ts). */
export const parseDeviceFrame = makeFrameParser<DeviceFrameType, DeviceFrame>(
  DEVICE_FRAME_TYPES,
  SHAPES,
);
