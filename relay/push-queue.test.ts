// H1: the relay-wide push queue on its own — how many run, how many wait, how many start per
// event-loop turn — and the hint queue's refusal as the machine reads it.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { makePushService, type PushReply } from './push.ts';
import { makePushQueue, START_PER_TURN } from './push-queue.ts';
import type { SubscriptionStore } from './subscriptions.ts';

const turn = () => new Promise((r) => setImmediate(r));
/** A job that runs until released; `started` counts how many began. */
function jobs() {
  const releases: (() => void)[] = [];
  let started = 0;
  const job = () => {
    started++;
    return new Promise<void>((r) => releases.push(r));
  };
  return { job, started: () => started, releaseAll: () => releases.splice(0).forEach((r) => r()) };
}

describe('H1: the push queue', () => {
  it('2 run and 3 wait; a 6th is refused; a finished job lets the next one in', async () => {
    const q = makePushQueue({ maxActive: 2, maxQueued: 3 });
    const j = jobs();
    const taken = Array.from({ length: 6 }, () => q.offer(j.job));
    expect(taken).toEqual([true, true, true, true, true, false]);
    for (let i = 0; i < 5; i++) await turn();
    expect([j.started(), q.active(), q.queued()]).toEqual([2, 2, 3]);
    j.releaseAll();
    for (let i = 0; i < 5; i++) await turn();
    expect([j.started(), q.active(), q.queued()]).toEqual([4, 2, 1]);
    expect(q.offer(j.job)).toBe(true);
    expect(q.offer(j.job)).toBe(true);
    expect(q.offer(j.job)).toBe(false);
    for (let k = 0; k < 5; k++) {
      j.releaseAll();
      for (let i = 0; i < 5; i++) await turn();
    }
    await q.idle();
    expect(j.started()).toBe(7);
  });

  it(`at most ${START_PER_TURN} job starts per event-loop turn`, async () => {
    const q = makePushQueue({ maxActive: 100, maxQueued: 100 });
    const j = jobs();
    for (let i = 0; i < 10; i++) q.offer(j.job);
    expect(j.started()).toBe(0); // never inside the caller's turn
    for (let t = 1; t <= 3; t++) {
      await turn();
      expect(j.started()).toBe(t * START_PER_TURN);
    }
    j.releaseAll();
  });

  it('a job that fails still gives its slot back', async () => {
    const q = makePushQueue({ maxActive: 1, maxQueued: 1 });
    let ran = false;
    q.offer(() => Promise.reject(new Error('boom')));
    q.offer(async () => void (ran = true));
    await q.idle();
    expect(ran).toBe(true);
  });
});

describe('H1: a hint the hint queue cannot take', () => {
  it('is answered push-failed "push failed (relay push queue full)" at once', () => {
    const store = { list: () => [] } as unknown as SubscriptionStore;
    const replies: [string, string][] = [];
    const reply: PushReply = (code, message) => void replies.push([code, message]);
    const push = makePushService({
      store,
      decision: { phonesAbsent: () => true },
      sender: () => Promise.reject(new Error('not used')),
      hints: makePushQueue({ maxActive: 1, maxQueued: 0 }),
      queue: makePushQueue({ maxActive: 1, maxQueued: 0 }),
      auth: { header: () => 'vapid t=x, k=y' },
      ttlSec: 60,
      deadlineMs: 1_000,
      rateLimits: false,
      pushRatePerMin: 10,
      pushBurst: 20,
      pushRatePerMinPerIp: 30,
      pushBurstPerIp: 40,
      now: () => 0,
      log: pino({ level: 'silent' }),
    });
    push.onPushHint('room-aaaa', 'ip', 'UA==', null, reply);
    push.onPushHint('room-aaaa', 'ip', 'UA==', null, reply);
    expect(replies).toEqual([['push-failed', 'push failed (relay push queue full)']]);
  });
});
