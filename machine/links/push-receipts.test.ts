import { describe, expect, it } from 'vitest';
import type { MachineMessage, PushReceipt } from '../../protocol/index.ts';
import { makePushReceipts, PUSH_ANSWER_WINDOW_MS, receiptFromRelayError } from './push-receipts.ts';
import { makeManualTimers, type ManualTimers } from '../../testkit/manual-clock.ts';
import { relaySuite } from '../test-support/relay-suite.ts';
import type { TestPhone } from '../test-support/test-phone.ts';
import { until } from '../../testkit/until.ts';
import type { World } from '../test-support/world.ts';

describe('Push delivery receipts: what each relay answer means for the phone', () => {
  const AT = 1_700_000_000_000;
  it.each<[string, string, PushReceipt]>([
    ['push-disabled', 'no VAPID subject', { outcome: 'disabled', at: AT }],
    ['push-no-subscribers', 'none', { outcome: 'no-subscribers', at: AT }],
    [
      'push-failed',
      'push failed for 2 of 3 subscriptions',
      { outcome: 'failed', at: AT, failed: 2, total: 3 },
    ],
    ['limit', 'push rate limit: 10 per minute per room', { outcome: 'rate-limited', at: AT }],
  ])('%s becomes a receipt', (code, message, expected) => {
    expect(receiptFromRelayError(code, message, AT)).toEqual({ ...expected, detail: message });
  });

  it('push-failed without a count in the wording keeps the outcome, never an invented count', () => {
    expect(receiptFromRelayError('push-failed', 'it broke', AT)).toEqual({
      outcome: 'failed',
      at: AT,
      detail: 'it broke',
    });
  });

  it('the relay wording is clamped and stripped of control characters before sealing', () => {
    const r = receiptFromRelayError('push-no-subscribers', `a\u0007b${'x'.repeat(500)}`, AT);
    expect(r?.detail?.startsWith('a b')).toBe(true);
    expect([...(r?.detail ?? '')].length).toBe(200);
  });

  it.each([
    ['limit', 'at most 10 push subscriptions per room'],
    ['limit', 'rate limit: 20 frames/s, burst 100'],
    ['bad-frame', 'push-subscribe refused'],
    ['too-large', ''],
  ])('%s (%s) is not an answer to a push hint', (code, message) => {
    expect(receiptFromRelayError(code, message, AT)).toBeNull();
  });
});

describe('"sent" is inferred: the relay answers only failures (manual clock)', () => {
  const make = () => {
    const timers = makeManualTimers();
    const seen: PushReceipt[] = [];
    const r = makePushReceipts({ timers, onChange: (x) => seen.push(x) });
    return { timers, seen, r };
  };

  it('a hint with no answer for the whole window is sent; a later hint restarts the window', () => {
    const { timers, seen, r } = make();
    r.hintSent();
    timers.advance(PUSH_ANSWER_WINDOW_MS - 1);
    r.hintSent();
    timers.advance(PUSH_ANSWER_WINDOW_MS - 1);
    expect(seen).toEqual([]);
    timers.advance(1);
    expect(seen).toEqual([{ outcome: 'sent', at: timers.now() }]);
    expect(r.current()).toEqual(seen[0]);
  });

  it('a failure inside the window is the outcome, and that window never becomes sent', () => {
    const { timers, seen, r } = make();
    r.hintSent();
    expect(r.relayError('push-no-subscribers', 'none')).toBe(true);
    timers.advance(PUSH_ANSWER_WINDOW_MS * 3);
    expect(seen.map((x) => x.outcome)).toEqual(['no-subscribers']);
  });

  it('a lost relay link cancels the window: a hint that may never have arrived is not sent', () => {
    const { timers, seen, r } = make();
    r.hintSent();
    r.linkLost();
    timers.advance(PUSH_ANSWER_WINDOW_MS * 2);
    expect(seen).toEqual([]);
    expect(r.current()).toBeUndefined();
  });

  it('an error frame that is not about a push changes nothing', () => {
    const { timers, seen, r } = make();
    r.hintSent();
    expect(r.relayError('limit', 'rate limit: 20 frames/s, burst 100')).toBe(false);
    timers.advance(PUSH_ANSWER_WINDOW_MS);
    expect(seen.map((x) => x.outcome)).toEqual(['sent']);
  });
});

// Against the real relay process: Web Push on (a VAPID subject), the local push service reachable
// only through the test-only origin option, and a small push burst so the rate limit is reachable.
describe('Push delivery receipts reach the phone through machine.status (real relay)', () => {
  const suite = relaySuite({
    push: true,
    extraArgs: ['--push-burst', '2', '--push-rate-per-min', '1'],
  });
  const world = (timers: ManualTimers): Promise<World> => suite.world({ timers });
  const receiptOf = (w: World) => w.machine.status().pushReceipt;
  const statusWithReceipt = (phone: TestPhone, outcome: string) =>
    phone.waitFor(
      (m: MachineMessage) => m.type === 'machine.status' && m.pushReceipt?.outcome === outcome,
    );

  /** A phone subscribes its devices, then leaves, so the machine's next messages push. */
  async function subscribeAndLeave(w: World, devices: number): Promise<void> {
    const phone = await w.phone();
    for (let i = 0; i < devices; i++)
      phone.sendFrame({
        kind: 'push-subscribe',
        room: phone.roomId,
        subscription: suite.service().subscription(`${phone.roomId}-${i}`),
      });
    // The relay handles one socket's subscription operations in order: the refusal of an endpoint
    // outside the allowed origin comes back only after the subscriptions before it are stored.
    phone.sendFrame({
      kind: 'push-subscribe',
      room: phone.roomId,
      subscription: {
        ...suite.service().subscription('x'),
        endpoint: 'http://127.0.0.2:9/barrier',
      },
    });
    await phone.waitForFrame((f) => f.kind === 'error' && f.code === 'bad-frame');
    await phone.close();
    await until(() => !w.machine.status().phoneOnline, 'the machine to see the phone leave');
  }

  it('push-no-subscribers: the phone’s next machine.status carries no-subscribers', async () => {
    const timers = makeManualTimers();
    const w = await world(timers);
    expect(receiptOf(w)).toBeUndefined();
    w.machine.raiseApproval({ title: 'Deploy', detail: 'ship it' });
    await until(() => receiptOf(w) !== undefined, 'the relay’s answer to the push hint');
    const answeredAt = timers.now();
    expect(receiptOf(w)).toMatchObject({ outcome: 'no-subscribers', at: answeredAt });
    // The window never turns an answered hint into "sent".
    timers.advance(PUSH_ANSWER_WINDOW_MS * 2);
    expect(receiptOf(w)?.outcome).toBe('no-subscribers');
    const phone = await w.phone();
    const status = await statusWithReceipt(phone, 'no-subscribers');
    expect(status.type === 'machine.status' && status.pushReceipt).toEqual({
      outcome: 'no-subscribers',
      at: answeredAt,
      detail: 'no push subscription in this room',
    });
  });

  it('failed with the count (push service answers 500), then sent once it works again', async () => {
    const timers = makeManualTimers();
    const w = await world(timers);
    await subscribeAndLeave(w, 2);
    const before = suite.service().answeredCount();
    suite.service().respondWith(500);
    w.machine.raiseApproval({ title: 'Deploy', detail: 'ship it' });
    await until(() => receiptOf(w) !== undefined, 'push-failed from the relay');
    expect(receiptOf(w)).toMatchObject({ outcome: 'failed', failed: 1, total: 2 });
    let phone = await w.phone();
    expect((await statusWithReceipt(phone, 'failed')).type).toBe('machine.status');
    await phone.close();
    await until(() => !w.machine.status().phoneOnline, 'the phone to leave');

    // Both devices accept the next one; the relay says nothing, so the window decides.
    const answered = suite.service().answered(before + 2 + 2);
    w.machine.raiseApproval({ title: 'Deploy again', detail: 'ship it' });
    await answered;
    expect(receiptOf(w)?.outcome).toBe('failed');
    timers.advance(PUSH_ANSWER_WINDOW_MS - 1);
    expect(receiptOf(w)?.outcome).toBe('failed');
    timers.advance(1);
    expect(receiptOf(w)).toEqual({ outcome: 'sent', at: timers.now() });
    phone = await w.phone();
    const status = await statusWithReceipt(phone, 'sent');
    // "sent", and the failure's count is gone with it.
    expect(status.type === 'machine.status' && status.pushReceipt).toEqual({
      outcome: 'sent',
      at: timers.now(),
    });
  });

  it('the room’s push rate limit (D3 limit on a push) is rate-limited, not sent', async () => {
    const timers = makeManualTimers();
    const w = await world(timers);
    const seen: string[] = [];
    w.machine.on({ pushReceipt: (r) => seen.push(r.outcome) });
    for (let i = 0; i < 3; i++) w.machine.raiseApproval({ title: `A${i}`, detail: 'd' });
    await until(() => seen.length === 3, 'three answers from the relay');
    // The limit is answered at once, no-subscribers after a store read: arrival order varies,
    // and the receipt is the last answer that arrived.
    expect([...seen].sort()).toEqual(['no-subscribers', 'no-subscribers', 'rate-limited']);
    const phone = await w.phone();
    await statusWithReceipt(phone, seen[2]!);
  });
});

describe('push-disabled: a relay without Web Push (real relay, no VAPID subject)', () => {
  const suite = relaySuite();

  it('the phone’s next machine.status carries disabled', async () => {
    const timers = makeManualTimers();
    const w = await suite.world({ timers });
    w.machine.raiseApproval({ title: 'Deploy', detail: 'ship it' });
    await until(() => w.machine.status().pushReceipt !== undefined, 'push-disabled');
    const phone = await w.phone();
    const status = await phone.waitFor(
      (m) => m.type === 'machine.status' && m.pushReceipt !== undefined,
    );
    expect(status.type === 'machine.status' && status.pushReceipt?.outcome).toBe('disabled');
  });
});
