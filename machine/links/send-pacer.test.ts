import { describe, expect, it } from 'vitest';
import type { MachineMessage } from '../../protocol/index.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { sendOptionsFor } from '../wire/outbox.ts';
import {
  CARD_RESERVE,
  makeSendPacer,
  MAX_QUEUED_FRAMES,
  SEND_BURST,
  SEND_RATE_PER_S,
  type SendOptions,
} from './send-pacer.ts';

// The machine's pacing of its frames to the relay, on the manual clock: what goes out when is
// decided by the bucket's arithmetic alone, so every step is exact.

function setup(open = () => true) {
  const timers = makeManualTimers();
  const written: string[] = [];
  let drops = 0;
  const pacer = makeSendPacer({
    timers,
    canWrite: open,
    write: (text) => written.push(text),
    dropped: () => drops++,
  });
  return { timers, written, pacer, drops: () => drops };
}

/** Fills the queue with `n` non-card frames: the bucket is then down to the card reserve. */
function stall(p: ReturnType<typeof setup>, n = SEND_BURST) {
  for (let i = 0; i < n; i++) p.pacer.push(`state-${i}`);
}

const ms = (tokens: number) => Math.ceil((tokens / SEND_RATE_PER_S) * 1000);

describe('E10.1: a card is never queued behind state', () => {
  it('E10.1: an approval is never queued behind other frames: it goes out at once while they wait', () => {
    const p = setup();
    stall(p);
    // Every other frame spends tokens only above the reserve: 80 out, 10 waiting.
    expect(p.written).toHaveLength(SEND_BURST - CARD_RESERVE);
    expect(p.pacer.waiting()).toBe(CARD_RESERVE);
    p.pacer.push('card-1', { card: true });
    expect(p.written.at(-1)).toBe('card-1');
    expect(p.pacer.waiting()).toBe(CARD_RESERVE);
  });

  it('E10.1: cards go out ahead of every waiting frame, in their own order, even past the reserve', () => {
    const p = setup();
    stall(p);
    for (let i = 0; i <= CARD_RESERVE; i++) p.pacer.push(`card-${i}`, { card: true });
    // The reserve pays for ten at once; the eleventh waits for the next token, not the queue.
    expect(p.written.slice(-CARD_RESERVE)).toEqual(
      Array.from({ length: CARD_RESERVE }, (_, i) => `card-${i}`),
    );
    const before = p.written.length;
    p.timers.advance(ms(1) - 1);
    expect(p.written).toHaveLength(before);
    p.timers.advance(1);
    expect(p.written.slice(before)).toEqual([`card-${CARD_RESERVE}`]);
  });

  it('E10.1: other frames wait until the reserve is whole again, then resume in order', () => {
    const p = setup();
    stall(p);
    p.pacer.push('card', { card: true });
    const before = p.written.length;
    // One token spent from the reserve: the next other frame needs two tokens' time.
    p.timers.advance(ms(2) - 1);
    expect(p.written).toHaveLength(before);
    p.timers.advance(1);
    expect(p.written.slice(before)).toEqual([`state-${SEND_BURST - CARD_RESERVE}`]);
  });

  it("E10.1: a session's state still waiting is replaced by its newer state, in its place", () => {
    const p = setup();
    stall(p);
    p.pacer.push('update-a-1', { replaces: 's:a' });
    p.pacer.push('closed-1');
    p.pacer.push('update-a-2', { replaces: 's:a' });
    p.pacer.push('update-b-1', { replaces: 's:b' });
    p.timers.advance(60_000);
    expect(p.written.slice(SEND_BURST)).toEqual(['update-a-2', 'closed-1', 'update-b-1']);
    // Once sent, a state is not replaced: the next one is a frame of its own.
    p.pacer.push('update-a-3', { replaces: 's:a' });
    expect(p.written.at(-1)).toBe('update-a-3');
  });

  it('E10.1: approval.request and question.request are cards; session.update replaces its session', () => {
    const ts = 1;
    const card = { v: 1, type: 'approval.request', ts } as unknown as MachineMessage;
    const question = { v: 1, type: 'question.request', ts } as unknown as MachineMessage;
    const update = {
      v: 1,
      type: 'session.update',
      ts,
      session: { sessionId: 'S1' },
    } as unknown as MachineMessage;
    const closed = { v: 1, type: 'approval.closed', ts } as unknown as MachineMessage;
    expect(sendOptionsFor(card)).toEqual<SendOptions>({ card: true });
    expect(sendOptionsFor(question)).toEqual<SendOptions>({ card: true });
    expect(sendOptionsFor(update)).toEqual<SendOptions>({ replaces: 's:S1' });
    expect(sendOptionsFor(closed)).toEqual<SendOptions>({});
  });
});

describe('D3: the machine stays under the relay rate limit whatever the order', () => {
  it('D3: any mix of cards and other frames never exceeds 20 frames/s with a burst of 100', () => {
    const p = setup();
    // The relay's own bucket (D3 defaults), fed with every frame the machine writes.
    const RELAY_RATE_PER_S = 20;
    const RELAY_BURST = 100;
    let relayTokens = RELAY_BURST;
    let at = p.timers.now();
    let seen = 0;
    let refused = 0;
    const relayReads = () => {
      const now = p.timers.now();
      relayTokens = Math.min(RELAY_BURST, relayTokens + ((now - at) / 1000) * RELAY_RATE_PER_S);
      at = now;
      for (; seen < p.written.length; seen++) {
        if (relayTokens < 1) refused++;
        else relayTokens -= 1;
      }
    };
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let step = 0; step < 3000; step++) {
      const burst = Math.floor(random() * 6);
      for (let i = 0; i < burst; i++) {
        const card = random() < 0.3;
        p.pacer.push(`f-${step}-${i}`, card ? { card: true } : {});
        relayReads();
      }
      p.timers.advance(Math.floor(random() * 120));
      relayReads();
    }
    expect(p.written.length).toBeGreaterThan(1000);
    expect(refused).toBe(0);
  });

  it('D3: frames wait while the socket is not open and go out when drained after hello-ok', () => {
    let open = false;
    const p = setup(() => open);
    p.pacer.push('a');
    p.pacer.push('card', { card: true });
    expect(p.written).toEqual([]);
    expect(p.timers.pending()).toBe(0);
    open = true;
    p.pacer.drain();
    expect(p.written).toEqual(['card', 'a']);
  });

  it('D3: over MAX_QUEUED_FRAMES the oldest other frame is dropped, never a waiting card', () => {
    let open = false;
    const p = setup(() => open);
    p.pacer.push('card', { card: true });
    for (let i = 0; i < MAX_QUEUED_FRAMES; i++) p.pacer.push(`f-${i}`);
    expect(p.drops()).toBe(1);
    expect(p.pacer.waiting()).toBe(MAX_QUEUED_FRAMES);
    open = true;
    p.pacer.drain();
    expect(p.written.slice(0, 2)).toEqual(['card', 'f-1']);
  });
});
