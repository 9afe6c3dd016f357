// The relay envelope of dsh-dispatch wire v1 (spec "Transport envelope", D1–D4): what a client
// sends to the relay and what the relay sends back. The relay sees only these fields; payloads
// are sealed elsewhere (seal.ts) and travel here as opaque strings.
import { utf8Decode } from './bytes.ts';
import { ROLES, type RelayErrorCode, type Role } from './closed-sets.ts';
import { MAX_ENVELOPE_BYTES, MAX_PUSH_PAYLOAD_BYTES, ROOM_ID_PATTERN } from './limits.ts';
import { err, ok, type Result } from './result.ts';

type FrameRole = Role;

/** Why a frame was refused; stable codes, tests assert them. */
export const FRAME_ERRORS = {
  tooLarge: 'too-large',
  notJson: 'not-json',
  notObject: 'not-object',
  unknownKind: 'unknown-kind',
  badRoom: 'bad-room',
  badRole: 'bad-role',
  badField: 'bad-field',
} as const;
export type FrameErrorCode = (typeof FRAME_ERRORS)[keyof typeof FRAME_ERRORS];

export type HelloFrame = { kind: 'hello'; room: string; role: FrameRole };
export type PushHint = { payload: string; tag?: string };
export type MsgFrame = { kind: 'msg'; room: string; payload: string; push?: PushHint | null };
/** The browser's PushSubscription.toJSON() shape. */
export type PushSubscriptionJson = {
  endpoint: string;
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
};
export type PushSubscribeFrame = {
  kind: 'push-subscribe';
  room: string;
  subscription: PushSubscriptionJson;
};
export type PushUnsubscribeFrame = { kind: 'push-unsubscribe'; room: string; endpoint: string };
export type HelloOkFrame = { kind: 'hello-ok'; peers: { machine: number; phone: number } };
export type PresenceFrame = { kind: 'presence'; room: string; role: FrameRole; online: boolean };
/** `code` is one of RELAY_ERROR_CODES; a newer relay may send others (old clients show `message`). */
export type RelayErrorFrame = {
  kind: 'error';
  code: RelayErrorCode | (string & {});
  message?: string;
};

export type ClientFrame = HelloFrame | MsgFrame | PushSubscribeFrame | PushUnsubscribeFrame;
/** Relay → client: its own frames plus the `msg` it forwards (never with `push`). */
export type ServerFrame = HelloOkFrame | PresenceFrame | RelayErrorFrame | MsgFrame;

type FrameResult<T> = Result<T, FrameErrorCode>;
type Obj = Record<string, unknown>;

export const isValidRoomId = (s: unknown): s is string =>
  typeof s === 'string' && ROOM_ID_PATTERN.test(s);

const isRole = (s: unknown): s is FrameRole => s === ROLES.machine || s === ROLES.phone;

/** UTF-8 length of a string without allocating; stops counting once past `limit`. */
function utf8LengthUpTo(s: string, limit: number): number {
  if (s.length > limit) return s.length;
  if (s.length * 3 <= limit) return s.length;
  let bytes = 0;
  for (let i = 0; i < s.length && bytes <= limit; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Size first (D1: before any JSON parsing), then UTF-8, then JSON, then "is an object". */
function decodeObject(raw: string | Uint8Array): FrameResult<Obj> {
  let text: string;
  if (typeof raw === 'string') {
    const size = utf8LengthUpTo(raw, MAX_ENVELOPE_BYTES);
    if (size > MAX_ENVELOPE_BYTES) return tooLarge(size);
    text = raw;
  } else {
    if (raw.length > MAX_ENVELOPE_BYTES) return tooLarge(raw.length);
    const decoded = utf8Decode(raw);
    if (!decoded.ok) return err(FRAME_ERRORS.notJson, 'frame is not valid UTF-8');
    text = decoded.value;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return err(FRAME_ERRORS.notJson, 'frame is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return err(FRAME_ERRORS.notObject, 'frame must be a JSON object');
  }
  return ok(value as Obj);
}

const tooLarge = (size: number): FrameResult<never> =>
  err(FRAME_ERRORS.tooLarge, `frame is ${size} bytes, over the ${MAX_ENVELOPE_BYTES}-byte cap`);
const badField = (what: string): FrameResult<never> => err(FRAME_ERRORS.badField, what);
const badRoom = (): FrameResult<never> =>
  err(FRAME_ERRORS.badRoom, 'room must match ^[A-Za-z0-9_-]{8,128}$');
const str = (v: unknown): v is string => typeof v === 'string';
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function parsePushHint(v: unknown): FrameResult<PushHint | null | undefined> {
  if (v === undefined || v === null) return ok(v);
  if (!isObj(v)) return badField('push must be an object or null');
  if (!str(v.payload)) return badField('push.payload must be a string');
  const size = utf8LengthUpTo(v.payload, MAX_PUSH_PAYLOAD_BYTES);
  if (size > MAX_PUSH_PAYLOAD_BYTES) {
    return err(
      FRAME_ERRORS.tooLarge,
      `push.payload is over the ${MAX_PUSH_PAYLOAD_BYTES}-byte cap`,
    );
  }
  if (v.tag !== undefined && !str(v.tag)) return badField('push.tag must be a string');
  return ok(v.tag === undefined ? { payload: v.payload } : { payload: v.payload, tag: v.tag });
}

function parseMsg(o: Obj, withPush: boolean): FrameResult<MsgFrame> {
  if (!isValidRoomId(o.room)) return badRoom();
  if (!str(o.payload)) return badField('payload must be a string');
  if (!withPush) return ok({ kind: 'msg', room: o.room, payload: o.payload });
  const push = parsePushHint(o.push);
  if (!push.ok) return push;
  const frame: MsgFrame = { kind: 'msg', room: o.room, payload: o.payload };
  if (push.value !== undefined) frame.push = push.value;
  return ok(frame);
}

function parseSubscription(v: unknown): FrameResult<PushSubscriptionJson> {
  if (!isObj(v)) return badField('subscription must be an object');
  if (!str(v.endpoint)) return badField('subscription.endpoint must be a string');
  if (!isObj(v.keys) || !str(v.keys.p256dh) || !str(v.keys.auth)) {
    return badField('subscription.keys must hold p256dh and auth strings');
  }
  const exp = v.expirationTime;
  if (exp !== undefined && exp !== null && typeof exp !== 'number') {
    return badField('subscription.expirationTime must be a number or null');
  }
  const sub: PushSubscriptionJson = {
    endpoint: v.endpoint,
    keys: { p256dh: v.keys.p256dh, auth: v.keys.auth },
  };
  if (exp !== undefined) sub.expirationTime = exp;
  return ok(sub);
}

/** Client → relay. Never throws; unknown fields are ignored (forward compatibility). */
export function parseClientFrame(raw: string | Uint8Array): FrameResult<ClientFrame> {
  const decoded = decodeObject(raw);
  if (!decoded.ok) return decoded;
  const o = decoded.value;
  switch (o.kind) {
    case 'hello':
      if (!isValidRoomId(o.room)) return badRoom();
      if (!isRole(o.role)) return err(FRAME_ERRORS.badRole, 'role must be "machine" or "phone"');
      return ok({ kind: 'hello', room: o.room, role: o.role });
    case 'msg':
      return parseMsg(o, true);
    case 'push-subscribe': {
      if (!isValidRoomId(o.room)) return badRoom();
      const sub = parseSubscription(o.subscription);
      if (!sub.ok) return sub;
      return ok({ kind: 'push-subscribe', room: o.room, subscription: sub.value });
    }
    case 'push-unsubscribe':
      if (!isValidRoomId(o.room)) return badRoom();
      if (!str(o.endpoint)) return badField('endpoint must be a string');
      return ok({ kind: 'push-unsubscribe', room: o.room, endpoint: o.endpoint });
    default:
      return unknownKind(o.kind);
  }
}

const unknownKind = (kind: unknown): FrameResult<never> =>
  err(
    FRAME_ERRORS.unknownKind,
    typeof kind === 'string' ? `unknown kind "${kind.slice(0, 32)}"` : 'kind must be a string',
  );

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** Relay → client. A `push` field on a forwarded msg is dropped (phones never act on it). */
export function parseServerFrame(raw: string | Uint8Array): FrameResult<ServerFrame> {
  const decoded = decodeObject(raw);
  if (!decoded.ok) return decoded;
  const o = decoded.value;
  switch (o.kind) {
    case 'hello-ok':
      if (!isObj(o.peers) || !isCount(o.peers.machine) || !isCount(o.peers.phone)) {
        return badField('peers must hold machine and phone counts');
      }
      return ok({ kind: 'hello-ok', peers: { machine: o.peers.machine, phone: o.peers.phone } });
    case 'presence':
      if (!isValidRoomId(o.room)) return badRoom();
      if (!isRole(o.role)) return err(FRAME_ERRORS.badRole, 'role must be "machine" or "phone"');
      if (typeof o.online !== 'boolean') return badField('online must be a boolean');
      return ok({ kind: 'presence', room: o.room, role: o.role, online: o.online });
    case 'error': {
      if (!str(o.code)) return badField('error code must be a string');
      if (o.message !== undefined && !str(o.message)) return badField('message must be a string');
      const frame: RelayErrorFrame = { kind: 'error', code: o.code };
      if (o.message !== undefined) frame.message = o.message;
      return ok(frame);
    }
    case 'msg':
      return parseMsg(o, false);
    default:
      return unknownKind(o.kind);
  }
}

/** The one way frames become wire text (both directions). */
export const encodeFrame = (frame: ClientFrame | ServerFrame): string => JSON.stringify(frame);
