// Parsers for the inner messages, one per direction (D12: each side acts only on its incoming
// types). Unknown `v` or `type` is "ignored" (the caller logs the type, never content); a known
// type with bad fields is "invalid". Unknown fields are tolerated and dropped.
import {
  MACHINE_MESSAGE_TYPES,
  PHONE_MESSAGE_TYPES,
  isMember,
  type ReasonCode,
} from './closed-sets.ts';
import { Invalid, isObject } from './check.ts';
import { MACHINE_PARSERS } from './machine-messages.ts';
import type { Parser } from './message-parts.ts';
import type { MachineMessage, PhoneMessage } from './message-types.ts';
import { PHONE_PARSERS } from './phone-messages.ts';
import type { Ok } from './result.ts';

export * from './message-types.ts';
export {
  MAX_ALLOWED_ROOTS,
  MAX_OPEN_CARDS,
  MAX_QUESTION_ITEMS,
  MAX_QUESTION_OPTIONS,
  MAX_SESSIONS,
  MAX_STEPS,
  MAX_TRANSCRIPT_ENTRIES,
} from './message-parts.ts';

export type MessageIgnored = {
  readonly ok: false;
  readonly ignored: true;
  readonly code: 'unknown-type' | 'unknown-version' | 'wrong-direction';
  /** The message's type when it had one (safe to log; bounded to 64 chars). */
  readonly type?: string;
  readonly message: string;
};
export type MessageInvalid = {
  readonly ok: false;
  readonly ignored: false;
  readonly code: 'invalid';
  readonly type?: string;
  readonly message: string;
  /** The request's id when it had a usable one, so the machine can answer the failure. */
  readonly requestId?: string;
  /** A spec reason code for the refusal when one fits (`bad-access-value`). */
  readonly reason?: ReasonCode;
};
export type MessageResult<T> = Ok<T> | MessageIgnored | MessageInvalid;

const loggable = (type: unknown): string | undefined =>
  typeof type === 'string' ? type.slice(0, 64) : undefined;

function parseDirected<T>(
  value: unknown,
  own: Record<string, Parser<T>>,
  other: Record<string, string>,
): MessageResult<T> {
  if (!isObject(value)) {
    return {
      ok: false,
      ignored: false,
      code: 'invalid',
      message: 'a message must be a JSON object',
    };
  }
  const type = loggable(value.type);
  const typed = type === undefined ? {} : { type };
  if (value.v !== 1) {
    return {
      ok: false,
      ignored: true,
      code: 'unknown-version',
      ...typed,
      message: 'message v is not 1',
    };
  }
  if (type === undefined) {
    return { ok: false, ignored: false, code: 'invalid', message: 'type must be a string' };
  }
  if (!Object.prototype.hasOwnProperty.call(own, value.type as string)) {
    const code = isMember(other, value.type) ? 'wrong-direction' : 'unknown-type';
    const message =
      code === 'wrong-direction'
        ? `${type} travels the other way; ignored (D12)`
        : `unknown message type ${type}; ignored`;
    return { ok: false, ignored: true, code, type, message };
  }
  try {
    return { ok: true, value: own[value.type as string]!(value) };
  } catch (e) {
    if (!(e instanceof Invalid)) throw e;
    const requestId =
      typeof value.requestId === 'string' &&
      value.requestId.length > 0 &&
      value.requestId.length <= 128
        ? { requestId: value.requestId }
        : {};
    const why = e.reason ? { reason: e.reason as ReasonCode } : {};
    return {
      ok: false,
      ignored: false,
      code: 'invalid',
      type,
      message: `${type}: ${e.message}`,
      ...requestId,
      ...why,
    };
  }
}

/** For the phone: machine → phone messages only. */
export const parseMachineMessage = (value: unknown): MessageResult<MachineMessage> =>
  parseDirected<MachineMessage>(value, MACHINE_PARSERS, PHONE_MESSAGE_TYPES);

/** For the machine: phone → machine messages only. */
export const parsePhoneMessage = (value: unknown): MessageResult<PhoneMessage> =>
  parseDirected<PhoneMessage>(value, PHONE_PARSERS, MACHINE_MESSAGE_TYPES);
