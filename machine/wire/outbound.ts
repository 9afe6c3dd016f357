import {
  clampText,
  compactPush,
  encodeFrame,
  MAX_APPROVAL_DETAIL_BYTES,
  MAX_ENVELOPE_BYTES,
  MAX_TURN_SUMMARY_BYTES,
  seal,
  TRUNCATION_SUFFIX,
  utf8ByteLength,
  type CompactPushFields,
  type MachineMessage,
  type MsgFrame,
  type QuestionItem,
} from '../../protocol/index.ts';

// Turns machine messages into relay frames: seals them, attaches the compact push when asked,
// and makes sure the whole frame fits the 16 KiB envelope. Clamps apply by characters, then
// UTF-8 bytes (spec), then — because JSON escaping can make text several times longer than its
// bytes — shrink further until the sealed frame fits.

export const MAX_QUESTION_PROMPT_BYTES = 2048;
export const MAX_QUESTION_LABEL_CHARS = 200;
export const MAX_APPROVAL_TITLE_CHARS = 200;

/** The `tag` collapsing one session's notifications: a UUID without hyphens (32 chars). */
export const pushTagFor = (sessionId: string): string => {
  const t = sessionId.replace(/[^A-Za-z0-9]/g, '').slice(0, 32);
  return t === '' ? 'machine' : t;
};

export type FrameSealer = {
  /** The frame text, or null when the message cannot fit (a bug upstream; logged by the caller). */
  frame(message: MachineMessage, push?: CompactPushFields): string | null;
};

export function makeFrameSealer(roomId: string, key: Uint8Array): FrameSealer {
  return {
    frame(message, push) {
      const build = (m: MachineMessage): string => {
        const f: MsgFrame = { kind: 'msg', room: roomId, payload: seal(m, key), push: null };
        if (push !== undefined)
          f.push = { payload: seal(compactPush(push), key), tag: pushTagFor(push.sessionId) };
        return encodeFrame(f);
      };
      let m = message;
      for (let attempt = 0; attempt < 12; attempt++) {
        const text = build(m);
        const size = utf8ByteLength(text);
        if (size <= MAX_ENVELOPE_BYTES) return text;
        const next = shrink(m, size);
        if (next === null) return null;
        m = next;
      }
      return null;
    },
  };
}

const cut = (text: string, bytes: number): string =>
  clampText(text, { bytes: Math.max(0, Math.floor(bytes)), suffix: TRUNCATION_SUFFIX }).text;

/**
 * One step smaller: the message's long free-text field, scaled by how far the frame is over
 * (escaping inflates text roughly in proportion), always by at least one byte.
 */
function shrink(m: MachineMessage, frameBytes: number): MachineMessage | null {
  const ratio = (MAX_ENVELOPE_BYTES / frameBytes) * 0.9;
  const smaller = (s: string) => {
    const bytes = utf8ByteLength(s);
    return cut(s, Math.min(bytes - 1, Math.floor(bytes * ratio)));
  };
  switch (m.type) {
    case 'approval.request':
      return { ...m, detail: smaller(m.detail) };
    case 'turn.final':
      return { ...m, summary: smaller(m.summary) };
    case 'error':
      return { ...m, message: smaller(m.message) };
    case 'question.request':
      return { ...m, items: m.items.map((i) => ({ ...i, prompt: smaller(i.prompt) })) };
    default:
      return null;
  }
}

export const clampDetail = (detail: string): string =>
  clampText(detail, { bytes: MAX_APPROVAL_DETAIL_BYTES, suffix: TRUNCATION_SUFFIX }).text;
export const clampApprovalTitle = (title: string): string =>
  clampText(title, { chars: MAX_APPROVAL_TITLE_CHARS, suffix: TRUNCATION_SUFFIX }).text;
export const clampSummary = (summary: string): string =>
  clampText(summary, { bytes: MAX_TURN_SUMMARY_BYTES, suffix: TRUNCATION_SUFFIX }).text;

/** "prompts/labels clamped like approval details". */
export function clampItems(items: readonly QuestionItem[]): QuestionItem[] {
  return items.map((i) => ({
    ...i,
    prompt: clampText(i.prompt, { bytes: MAX_QUESTION_PROMPT_BYTES, suffix: TRUNCATION_SUFFIX })
      .text,
    options: i.options.map((o) => ({
      ...o,
      label: clampText(o.label, { chars: MAX_QUESTION_LABEL_CHARS, suffix: TRUNCATION_SUFFIX })
        .text,
    })),
  }));
}
