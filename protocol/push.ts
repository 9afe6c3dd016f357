// The compact push (spec "Idempotency & limits" + D9): what the machine seals into `push.payload`
// for the relay to deliver by Web Push when no phone is connected. D6: the sealed string is the
// whole push body, so it must stay within MAX_PUSH_PAYLOAD_BYTES.
import { clampText } from './clamp.ts';
import { PUSH_KINDS, isMember, type PushKind } from './closed-sets.ts';
import { utf8ByteLength } from './bytes.ts';
import { Invalid, id, isObject, oneOf, optId, optText, optTrue, str, defined } from './check.ts';
import { MAX_PUSH_PAYLOAD_BYTES, MAX_PUSH_WHAT_CHARS, MAX_TITLE_CHARS } from './limits.ts';
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
  /**
   * E5: what the approval asks (`Run: npm test`) or the question's first prompt, ≤ 160 chars,
   * never blank. The service worker offers Allow only on a notification that shows it.
   */
  what?: string;
  /**
   * E7: set when this approval's Allow needs verified presence (its request carries `presence:
   * true`). A service worker cannot make a WebAuthn assertion, so it offers Deny only.
   */
  presence?: true;
};

export type CompactPushFields = Omit<CompactPush, 'v' | 'type'>;

const sealedBytes = (p: CompactPush): number => sealedLength(utf8ByteLength(JSON.stringify(p)));

/** UTF-8 bytes of `text` to keep so that its JSON form loses about `jsonBytes`. */
function budgetAfter(text: string, jsonBytes: number): number {
  const bytes = utf8ByteLength(text);
  const escaped = utf8ByteLength(JSON.stringify(text)) - 2;
  if (escaped <= 0) return 0;
  return Math.min(bytes - 1, Math.floor((bytes * (escaped - jsonBytes)) / escaped));
}

/** E5: marks a `what` that was cut, so nobody allows the visible start of a longer command. */
export const WHAT_CUT_SUFFIX = '…';

const clampWhat = (what: string, limits: { chars?: number; bytes?: number }) => {
  const cut = clampText(what, { ...limits, suffix: WHAT_CUT_SUFFIX });
  // Nothing left but the mark (or nothing at all) says nothing: leave `what` out.
  const empty = cut.text.trim() === '' || (cut.truncated && cut.text === WHAT_CUT_SUFFIX);
  return empty ? undefined : cut.text;
};

/**
 * E5: `what` from a title and the start of a detail (`pushWhat('Run', 'npm test')` →
 * `Run: npm test`). Line breaks, runs of white space and control characters become one space, so
 * a second line of a command shows instead of hiding below the first; `compactPush` clamps it.
 */
export const pushWhat = (...parts: string[]): string =>
  parts
    .map((p) => p.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim())
    .filter((p) => p !== '')
    .join(': ');

/**
 * Builds a compact push whose sealed form fits MAX_PUSH_PAYLOAD_BYTES: `what` is clamped to 160
 * characters and the title to 80, then (JSON escaping can make text longer than its UTF-8 bytes)
 * `what` is shrunk first — down to leaving it out — and only then the title. A cut `what` ends in
 * `WHAT_CUT_SUFFIX`. Throws RangeError only when the ids alone cannot fit — a caller bug.
 */
export function compactPush(fields: CompactPushFields): CompactPush {
  const build = (title: string, what: string | undefined): CompactPush =>
    defined({
      v: 1,
      type: 'push',
      kind: fields.kind,
      sessionId: fields.sessionId,
      title,
      approvalId: fields.approvalId,
      questionId: fields.questionId,
      what,
      presence: fields.presence,
    });
  let title = clampText(fields.title, { chars: MAX_TITLE_CHARS }).text;
  let what =
    fields.what === undefined ? undefined : clampWhat(fields.what, { chars: MAX_PUSH_WHAT_CHARS });
  let push = build(title, what);
  // Shrink by the overshoot: JSON bytes over the limit, turned into UTF-8 bytes of the text by its
  // own escaping ratio (a control character is 1 byte but 6 in JSON), at least one byte a step.
  while (sealedBytes(push) > MAX_PUSH_PAYLOAD_BYTES) {
    const overshoot = Math.ceil(((sealedBytes(push) - MAX_PUSH_PAYLOAD_BYTES) * 3) / 4);
    if (what !== undefined) {
      const bytes = budgetAfter(what, overshoot);
      what = bytes <= 0 ? undefined : clampWhat(what, { bytes });
    } else {
      if (title.length === 0)
        throw new RangeError('compact push ids exceed the push payload limit');
      title = clampText(title, { bytes: Math.max(0, budgetAfter(title, overshoot)) }).text;
    }
    push = build(title, what);
  }
  return push;
}

function pushWhatField(o: Record<string, unknown>): string | undefined {
  const what = optText(o, 'what', { chars: MAX_PUSH_WHAT_CHARS });
  if (what !== undefined && what.trim() === '') throw new Invalid('what must not be blank');
  return what;
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
        what: pushWhatField(value),
        presence: optTrue(value, 'presence'),
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
