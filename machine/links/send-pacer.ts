import type { TimerHandle, Timers } from '../timers.ts';

// How the machine paces its frames to the relay (D3: the relay refuses a socket's frames over
// 20/s with a burst of 100, and a refused frame is lost). One token bucket a little under that
// limit — SEND_RATE_PER_S, SEND_BURST — so a burst is delayed rather than lost; the relay's
// limit is never approached, whatever the order below.
//
// E10.1: a card is never queued behind state. A card (approval.request, question.request) is
// what a human waits for; every other frame is state the phone shows or a reply. Cards have a
// queue of their own that goes out first, and the last CARD_RESERVE tokens of the bucket are
// theirs: other frames only spend tokens above the reserve. A turn of many tool calls sends a
// few `session.update`s and an `approval.closed` per ask; at 18 frames/s they used to queue the
// next card 140–220 ms behind them (bench:agents, docs/quality.md "Real agents"). And a frame
// that `replaces` a key (a session's `session.update`: it carries the whole session) takes the
// place of a frame of that key still waiting, so a session's stale states are never sent.

/** D3's relay default is 20 frames/s per socket with a burst of 100; the machine stays under. */
export const SEND_RATE_PER_S = 18;
export const SEND_BURST = 90;
/** E10.1: tokens only cards may spend (ten cards at once go out without waiting). */
export const CARD_RESERVE = 10;
export const MAX_QUEUED_FRAMES = 1000;

export type SendOptions = {
  /** E10.1: a card (approval.request, question.request): ahead of every other frame. */
  card?: boolean;
  /** A frame waiting with this key is replaced by this one, in its place (a session's state). */
  replaces?: string;
};

type Waiting = { text: string; key: string | undefined };

export type SendPacer = {
  /** Queues `text` and sends what the budget allows now. */
  push(text: string, options?: SendOptions): void;
  /** Sends what the budget allows (after a reconnect's hello-ok). */
  drain(): void;
  /** Frames waiting (cards and others). */
  waiting(): number;
  close(): void;
};

export function makeSendPacer(o: {
  timers: Timers;
  /** Writes one frame to the socket; false when it is not open now (the frame stays queued). */
  canWrite(): boolean;
  write(text: string): void;
  /** The queue was over MAX_QUEUED_FRAMES and its oldest frame was dropped. */
  dropped(): void;
  ratePerS?: number;
  burst?: number;
  cardReserve?: number;
  maxQueued?: number;
}): SendPacer {
  const rate = o.ratePerS ?? SEND_RATE_PER_S;
  const burst = o.burst ?? SEND_BURST;
  const reserve = Math.min(o.cardReserve ?? CARD_RESERVE, burst - 1);
  const maxQueued = o.maxQueued ?? MAX_QUEUED_FRAMES;
  const cards: string[] = [];
  const others: Waiting[] = [];
  let tokens = burst;
  let refilledAt = o.timers.now();
  let timer: TimerHandle | undefined;
  let closed = false;

  function drain(): void {
    if (closed) return;
    const nowMs = o.timers.now();
    tokens = Math.min(burst, tokens + ((nowMs - refilledAt) / 1000) * rate);
    refilledAt = nowMs;
    while (cards.length > 0 && tokens >= 1 && o.canWrite()) {
      o.write(cards.shift()!);
      tokens -= 1;
    }
    while (cards.length === 0 && others.length > 0 && tokens >= 1 + reserve && o.canWrite()) {
      o.write(others.shift()!.text);
      tokens -= 1;
    }
    if (cards.length + others.length === 0 || timer !== undefined || !o.canWrite()) return;
    const need = cards.length > 0 ? 1 : 1 + reserve;
    timer = o.timers.setTimeout(
      () => {
        timer = undefined;
        drain();
      },
      Math.max(1, Math.ceil(((need - tokens) / rate) * 1000)),
    );
  }

  return {
    push(text, options = {}) {
      if (closed) return;
      if (options.card) cards.push(text);
      else {
        const key = options.replaces;
        const at = key === undefined ? -1 : others.findIndex((w) => w.key === key);
        if (at >= 0) others[at] = { text, key };
        else others.push({ text, key });
      }
      if (cards.length + others.length > maxQueued) {
        if (others.length > 0) others.shift();
        else cards.shift();
        o.dropped();
      }
      drain();
    },
    drain,
    waiting: () => cards.length + others.length,
    close() {
      closed = true;
      if (timer !== undefined) o.timers.clearTimeout(timer);
      timer = undefined;
    },
  };
}
