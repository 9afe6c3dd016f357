import { describe, expect, it } from 'vitest';
import { PUSH_OUTCOMES } from '../../../protocol/index.ts';
import { connect, flush, machineOf, makeHarness, pairingFor } from '../test-support/harness.ts';
import { RECEIPT_STRINGS, describeReceipt } from './receipt.ts';

const STATUS = {
  type: 'machine.status',
  machine: 'laptop',
  pluginVersion: 'mock-machine/0.1.0',
  allowedRoots: [],
};
const AT = Date.UTC(2026, 10, 30, 12, 4);
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

async function paired() {
  const h = makeHarness();
  await h.client.start();
  const p = pairingFor('laptop', 7);
  await h.client.pair(p);
  const m = machineOf(p);
  const ws = h.sockets.last();
  connect(ws);
  const receipt = () => h.client.state().machines[0]!.status?.pushReceipt;
  return { ...h, m, ws, receipt };
}

describe('Push delivery receipts on the phone (machine.status.pushReceipt, no DOM)', () => {
  it('no-subscribers arrives sealed in machine.status and reads as not delivered, with the fix', async () => {
    const { m, ws, receipt } = await paired();
    m.say(ws, { ...STATUS, pushReceipt: { outcome: 'no-subscribers', at: AT } });
    expect(receipt()).toEqual({ outcome: 'no-subscribers', at: AT });
    expect(describeReceipt('en', 'laptop', receipt()!, hhmm)).toEqual({
      tone: 'problem',
      text: 'Last notification from laptop: not delivered — no device subscribed (12:04)',
      hint: RECEIPT_STRINGS.en.hints['no-subscribers'],
    });
  });

  it('failed carries the count; the next sent status replaces it, and sent is never "delivered"', async () => {
    const { m, ws, receipt } = await paired();
    m.say(ws, { ...STATUS, pushReceipt: { outcome: 'failed', at: AT, failed: 1, total: 2 } });
    expect(describeReceipt('en', 'laptop', receipt()!, hhmm).text).toBe(
      'Last notification from laptop: not delivered to 1 of 2 devices — the push service refused it (12:04)',
    );
    m.say(ws, { ...STATUS, pushReceipt: { outcome: 'sent', at: AT + 60_000 } });
    expect(receipt()).toEqual({ outcome: 'sent', at: AT + 60_000 });
    const view = describeReceipt('en', 'laptop', receipt()!, hhmm);
    expect(view).toEqual({
      tone: 'ok',
      text: 'Last notification from laptop: sent — the relay reported no failure (12:05)',
    });
    expect(view.text).not.toMatch(/delivered/);
  });

  it('an invalid receipt is refused with its code and the receipt shown before stays', async () => {
    const { m, ws, receipt, logs } = await paired();
    m.say(ws, { ...STATUS, pushReceipt: { outcome: 'no-subscribers', at: AT } });
    m.say(ws, { ...STATUS, pushReceipt: { outcome: 'delivered', at: AT } });
    expect(receipt()?.outcome).toBe('no-subscribers');
    expect(logs.at(-1)).toMatch(/ignored a message \(invalid machine\.status\)/);
  });

  it('a machine that predates the field shows no receipt (absent, not "sent")', async () => {
    const { m, ws, receipt } = await paired();
    m.say(ws, STATUS);
    expect(receipt()).toBeUndefined();
  });

  it('the receipt survives an app restart with the cached status (offline reading)', async () => {
    const { m, ws, kv, clock, client } = await paired();
    m.say(ws, { ...STATUS, pushReceipt: { outcome: 'disabled', at: AT } });
    clock.advance(1_000);
    client.close();
    await flush();
    const again = makeHarness({ kv, clock });
    await again.client.start();
    expect(again.client.state().machines[0]!.status?.pushReceipt).toEqual({
      outcome: 'disabled',
      at: AT,
    });
    again.client.close();
  });

  it('every outcome has words and a tone in both languages; every problem has a fix hint', () => {
    for (const lang of ['en', 'zh'] as const) {
      for (const outcome of Object.values(PUSH_OUTCOMES)) {
        const v = describeReceipt(lang, 'laptop', { outcome, at: AT }, hhmm);
        expect(v.text).toContain('laptop');
        expect(v.text).toContain('12:04');
        expect(v.tone).toBe(outcome === 'sent' ? 'ok' : 'problem');
        if (outcome !== 'sent') expect(v.hint?.trim()).toBeTruthy();
      }
    }
    expect(describeReceipt('zh', 'laptop', { outcome: 'no-subscribers', at: AT }, hhmm).text).toBe(
      '来自 laptop 的上一条通知：未送达 — 没有设备订阅（12:04）',
    );
  });
});
