import {
  clampText,
  MAX_PUSH_RECEIPT_DETAIL_CHARS,
  PUSH_OUTCOMES,
  type PushOutcome,
  type PushReceipt,
} from '../../protocol/index.ts';
import type { TimerHandle, Timers } from '../timers.ts';

// The last push outcome of this machine's room, for machine.status.pushReceipt. The relay answers
// a push hint only when it fails (push-disabled, push-no-subscribers, push-failed, or D3's limit)
// and says nothing on success, so "sent" is an inference: a hint went out and no failure came
// back within the relay's answer window. The relay's error frames carry no room and no hint id;
// a failure that arrives within the window of a later hint is taken as that window's outcome.

/**
 * The relay gives the push service `pushTimeoutMs` (10 s by default) per request before it
 * answers push-failed; past this window a silent relay has not reported a failure.
 */
export const PUSH_ANSWER_WINDOW_MS = 15_000;

/** Relay error codes that are answers to a push hint, and the outcome each one means. */
export const RELAY_PUSH_ANSWERS = {
  'push-disabled': PUSH_OUTCOMES.disabled,
  'push-no-subscribers': PUSH_OUTCOMES['no-subscribers'],
  'push-failed': PUSH_OUTCOMES.failed,
} as const satisfies Record<string, PushOutcome>;

// D3's `limit` is shared by every cap; only the push rate limit's wording names it.
const PUSH_LIMIT_PREFIX = 'push rate limit';
// The relay's wording for push-failed (spec: "count in message"), asserted by its own tests.
const FAILED_COUNT = /(\d+) of (\d+)/;

/** The receipt a relay error frame means, or null when the frame is not about a push. */
export function receiptFromRelayError(
  code: string,
  message: string,
  at: number,
): PushReceipt | null {
  let outcome: PushOutcome;
  if (Object.prototype.hasOwnProperty.call(RELAY_PUSH_ANSWERS, code))
    outcome = RELAY_PUSH_ANSWERS[code as keyof typeof RELAY_PUSH_ANSWERS];
  else if (code === 'limit' && message.startsWith(PUSH_LIMIT_PREFIX))
    outcome = PUSH_OUTCOMES['rate-limited'];
  else return null;
  const receipt: PushReceipt = { outcome, at };
  const m = outcome === PUSH_OUTCOMES.failed ? FAILED_COUNT.exec(message) : null;
  if (m) {
    const failed = Number(m[1]);
    const total = Number(m[2]);
    if (failed >= 1 && failed <= total) Object.assign(receipt, { failed, total });
  }
  const detail = clampText(message.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' '), {
    chars: MAX_PUSH_RECEIPT_DETAIL_CHARS,
  }).text;
  if (detail.length > 0) receipt.detail = detail;
  return receipt;
}

export type PushReceipts = {
  /** A frame carrying a push hint went to the relay. */
  hintSent(): void;
  /** The relay link dropped: a hint in flight may never have reached it, so no "sent" for it. */
  linkLost(): void;
  /** Every relay error frame; true when it was an answer to a push. */
  relayError(code: string, message: string): boolean;
  current(): PushReceipt | undefined;
  close(): void;
};

export function makePushReceipts(options: {
  timers: Timers;
  windowMs?: number;
  onChange(receipt: PushReceipt): void;
}): PushReceipts {
  const { timers } = options;
  const windowMs = options.windowMs ?? PUSH_ANSWER_WINDOW_MS;
  let last: PushReceipt | undefined;
  let window: TimerHandle | null = null;

  const record = (receipt: PushReceipt) => {
    last = receipt;
    options.onChange(receipt);
  };
  const stopWindow = () => {
    if (window !== null) timers.clearTimeout(window);
    window = null;
  };

  return {
    hintSent() {
      stopWindow();
      window = timers.setTimeout(() => {
        window = null;
        record({ outcome: PUSH_OUTCOMES.sent, at: timers.now() });
      }, windowMs);
    },
    linkLost: stopWindow,
    relayError(code, message) {
      const receipt = receiptFromRelayError(code, message, timers.now());
      if (receipt === null) return false;
      // The failure answers the hint in flight: that window must not turn into "sent".
      stopWindow();
      record(receipt);
      return true;
    },
    current: () => last,
    close: stopWindow,
  };
}
