// The compact push (spec "Idempotency & limits" + D9): what the machine seals into `push.payload`
// for the relay to deliver by Web Push when no phone is connected. D6: the sealed string is the
// whole push body, so it must stay within MAX_PUSH_PAYLOAD_BYTES.
import { clampText } from './clamp.ts';
import { PUSH_KINDS, isMember, type PushKind } from './closed-sets.ts';
import { utf8ByteLength } from './bytes.ts';
import { Invalid, id, isObject, oneOf, optId, str, defined } from './check.ts';
import { MAX_PUSH_PAYLOAD_BYTES, MAX_TITLE_CHARS } from './limits.ts';
import type { MessageResult } from './messages.ts';
import { sealedLength } from './seal.ts';

export type CompactPush = {
  v: 1;
  type: 'push';
  kind: PushKind;
  sessionId: string;
  title: string;
  /** D9: set when the push is about one approval, so a tap opens (and can answer) it. */
  approvalId?: string;
  /** D9: set when the push is about one question. */
  questionId?: string;
};

export type CompactPushFields = Omit<CompactPush, 'v' | 'type'>;

const sealedBytes = (p: CompactPush): number => sealedLength(utf8ByteLength(JSON.stringify(p)));

/**
 * Builds a compact push whose sealed form fits MAX_PUSH_PAYLOAD_BYTES, clamping the title (80
 * characters, then bytes). Throws RangeError only when the ids alone cannot fit — a caller bug.
 */
export function compactPush(fields: CompactPushFields): CompactPush {
  const build = (title: string): CompactPush =>
    defined({
      v: 1,
      type: 'push',
      kind: fields.kind,
      sessionId: fields.sessionId,
      title,
      approvalId: fields.approvalId,
      questionId: fields.questionId,
    });
  let title = clampText(fields.title, { chars: MAX_TITLE_CHARS }).text;
  let push = build(title);
  // JSON escaping can make a title longer than its UTF-8 bytes: shrink by the overshoot.
  while (sealedBytes(push) > MAX_PUSH_PAYLOAD_BYTES) {
    if (title.length === 0) throw new RangeError('compact push ids exceed the push payload limit');
    const overshoot = Math.ceil(((sealedBytes(push) - MAX_PUSH_PAYLOAD_BYTES) * 3) / 4);
    title = clampText(title, { bytes: Math.max(0, utf8ByteLength(title) - overshoot) }).text;
    push = build(title);
  }
  return push;
}

/** For the service worker: the opened push body. Same result shape as the message parsers. */
export function parseCompactPush(value: unknown): MessageResult<CompactPush> {
  if (!isObject(value)) {
    return { ok: false, ignored: false, code: 'invalid', message: 'a push must be a JSON object' };
  }
  const type = typeof value.type === 'string' ? { type: value.type.slice(0, 64) } : {};
  if (value.v !== 1) {
    return {
      ok: false,
      ignored: true,
      code: 'unknown-version',
      ...type,
      message: 'push v is not 1',
    };
  }
  if (value.type !== 'push') {
    return {
      ok: false,
      ignored: true,
      code: 'unknown-type',
      ...type,
      message: 'not a compact push',
    };
  }
  try {
    return {
      ok: true,
      value: defined({
        v: 1,
        type: 'push',
        kind: oneOf(value, 'kind', PUSH_KINDS),
        sessionId: id(value, 'sessionId'),
        title: str(value, 'title'),
        approvalId: optId(value, 'approvalId'),
        questionId: optId(value, 'questionId'),
      }),
    };
  } catch (e) {
    if (!(e instanceof Invalid)) throw e;
    return {
      ok: false,
      ignored: false,
      code: 'invalid',
      type: 'push',
      message: `push: ${e.message}`,
    };
  }
}

export const isPushKind = (v: unknown): v is PushKind => isMember(PUSH_KINDS, v);
