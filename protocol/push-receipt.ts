// The last push outcome a machine saw for its room, carried to the phone inside the sealed
// `machine.status` (optional field `pushReceipt`, additive under wire v1: old phones drop unknown
// fields). The relay answers a push hint only on failure (spec "Push delivery receipts"), so the
// machine reports `sent` when no failure came back within the relay's answer window: the relay
// handed the payload to the push service; nobody can tell that a device displayed it.
import { isObject } from './check.ts';
import type { Member } from './closed-sets.ts';
import { err, ok, type Result } from './result.ts';

export const PUSH_OUTCOMES = {
  /** No failure came back within the answer window: accepted by the push service. */
  sent: 'sent',
  /** `push-no-subscribers`: no device of this room is subscribed. */
  'no-subscribers': 'no-subscribers',
  /** `push-failed`: the push service refused or did not answer for `failed` of `total`. */
  failed: 'failed',
  /** `push-disabled`: the relay has no VAPID subject, Web Push is off there. */
  disabled: 'disabled',
  /** D3 `limit` on a push hint: the room's push rate limit dropped it. */
  'rate-limited': 'rate-limited',
} as const;
export type PushOutcome = Member<typeof PUSH_OUTCOMES>;

export type PushReceipt = {
  outcome: PushOutcome;
  /** Machine clock (unix ms) when the outcome became known. */
  at: number;
  /** Only for `failed`, when the relay's message said it: subscriptions that failed / tried. */
  failed?: number;
  total?: number;
  /** The relay's own wording, clamped by the machine before sealing. */
  detail?: string;
};

/** The relay's wording is diagnostic only; the phone renders the outcome in its own words. */
export const MAX_PUSH_RECEIPT_DETAIL_CHARS = 200;
/** D3 caps subscriptions per room at 10 by default; anything near this is a broken sender. */
export const MAX_PUSH_RECEIPT_COUNT = 10_000;

export const PUSH_RECEIPT_ERRORS = {
  'not-object': 'not-object',
  'bad-outcome': 'bad-outcome',
  'bad-at': 'bad-at',
  'bad-count': 'bad-count',
  'bad-detail': 'bad-detail',
} as const;
export type PushReceiptErrorCode = Member<typeof PUSH_RECEIPT_ERRORS>;

const isCount = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_PUSH_RECEIPT_COUNT;

/** Parse at the edge; messages name the field, never its value (D12). Unknown fields dropped. */
export function parsePushReceipt(value: unknown): Result<PushReceipt, PushReceiptErrorCode> {
  if (!isObject(value)) return err('not-object', 'pushReceipt must be an object');
  const { outcome, at, failed, total, detail } = value;
  if (typeof outcome !== 'string' || !Object.prototype.hasOwnProperty.call(PUSH_OUTCOMES, outcome))
    return err(
      'bad-outcome',
      `pushReceipt.outcome must be one of ${Object.keys(PUSH_OUTCOMES).join(', ')}`,
    );
  if (typeof at !== 'number' || !Number.isSafeInteger(at) || at < 0)
    return err('bad-at', 'pushReceipt.at must be a non-negative integer (unix ms)');
  const receipt: PushReceipt = { outcome: outcome as PushOutcome, at };
  if (failed !== undefined || total !== undefined) {
    if (outcome !== PUSH_OUTCOMES.failed)
      return err('bad-count', 'pushReceipt.failed/total belong only to outcome failed');
    if (!isCount(failed) || !isCount(total) || failed < 1 || failed > total)
      return err(
        'bad-count',
        'pushReceipt.failed and total must come together, 1 ≤ failed ≤ total',
      );
    receipt.failed = failed;
    receipt.total = total;
  }
  if (detail !== undefined) {
    if (typeof detail !== 'string' || [...detail].length > MAX_PUSH_RECEIPT_DETAIL_CHARS)
      return err(
        'bad-detail',
        `pushReceipt.detail must be a string of at most ${MAX_PUSH_RECEIPT_DETAIL_CHARS} characters`,
      );
    receipt.detail = detail;
  }
  return ok(receipt);
}
