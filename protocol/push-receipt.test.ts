import { describe, expect, it } from 'vitest';
import { parseMachineMessage } from './messages.ts';
import {
  MAX_PUSH_RECEIPT_DETAIL_CHARS,
  PUSH_OUTCOMES,
  parsePushReceipt,
  type PushReceiptErrorCode,
} from './push-receipt.ts';
import { MACHINE_MESSAGES } from './test-support/fixtures.ts';

const AT = 1_767_225_600_000;

describe('Push delivery receipts reach the phone: machine.status.pushReceipt (additive)', () => {
  it.each(Object.values(PUSH_OUTCOMES))('outcome %s parses', (outcome) => {
    expect(parsePushReceipt({ outcome, at: AT })).toEqual({ ok: true, value: { outcome, at: AT } });
  });

  it('push-failed keeps the count from the relay (failed of total) and the clamped wording', () => {
    const value = {
      outcome: 'failed',
      at: AT,
      failed: 2,
      total: 3,
      detail: 'push failed for 2 of 3 subscriptions',
    };
    expect(parsePushReceipt({ ...value, future: true })).toEqual({ ok: true, value });
  });

  it.each<[string, unknown, PushReceiptErrorCode]>([
    ['null', null, 'not-object'],
    ['an array', [], 'not-object'],
    ['a string', 'sent', 'not-object'],
    ['an unknown outcome', { outcome: 'delivered', at: AT }, 'bad-outcome'],
    ['an outcome of the wrong case', { outcome: 'SENT', at: AT }, 'bad-outcome'],
    ['an inherited name as outcome', { outcome: 'toString', at: AT }, 'bad-outcome'],
    ['no at', { outcome: 'sent' }, 'bad-at'],
    ['a negative at', { outcome: 'sent', at: -1 }, 'bad-at'],
    ['a fractional at', { outcome: 'sent', at: 1.5 }, 'bad-at'],
    [
      'counts on a non-failed outcome',
      { outcome: 'sent', at: AT, failed: 1, total: 1 },
      'bad-count',
    ],
    ['failed without total', { outcome: 'failed', at: AT, failed: 1 }, 'bad-count'],
    ['failed above total', { outcome: 'failed', at: AT, failed: 3, total: 2 }, 'bad-count'],
    ['zero failed', { outcome: 'failed', at: AT, failed: 0, total: 2 }, 'bad-count'],
    ['a string count', { outcome: 'failed', at: AT, failed: '1', total: 2 }, 'bad-count'],
    ['a huge count', { outcome: 'failed', at: AT, failed: 1, total: 1e9 }, 'bad-count'],
    ['a non-string detail', { outcome: 'sent', at: AT, detail: 7 }, 'bad-detail'],
    [
      'an over-long detail',
      { outcome: 'sent', at: AT, detail: 'x'.repeat(MAX_PUSH_RECEIPT_DETAIL_CHARS + 1) },
      'bad-detail',
    ],
  ])('%s is refused with its own code', (_w, value, code) => {
    const r = parsePushReceipt(value);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe(code);
      expect(r.message).toMatch(/pushReceipt/);
    }
  });

  it('detail is counted in code points, so 200 emoji still fit', () => {
    const detail = '😀'.repeat(MAX_PUSH_RECEIPT_DETAIL_CHARS);
    expect(parsePushReceipt({ outcome: 'sent', at: AT, detail }).ok).toBe(true);
  });

  const status = (extra: Record<string, unknown>) =>
    parseMachineMessage({ ...MACHINE_MESSAGES['machine.status'], ...extra });

  it('machine.status carries a valid receipt through parseMachineMessage', () => {
    const r = status({ pushReceipt: { outcome: 'no-subscribers', at: AT } });
    expect(r.ok && r.value.type === 'machine.status' && r.value.pushReceipt).toEqual({
      outcome: 'no-subscribers',
      at: AT,
    });
  });

  it('absent: an older machine sends no receipt, and the status has no pushReceipt key', () => {
    const r = status({});
    expect(r.ok).toBe(true);
    expect(r.ok && 'pushReceipt' in r.value).toBe(false);
  });

  it('invalid: the status is invalid and the message names the field and the code', () => {
    const r = status({ pushReceipt: { outcome: 'delivered', at: AT } });
    expect(r).toMatchObject({ ok: false, ignored: false, code: 'invalid', type: 'machine.status' });
    if (!r.ok) expect(r.message).toContain('bad-outcome');
  });
});
