import { describe, expect, it } from 'vitest';
import type { PhoneEntry } from '../../protocol/index.ts';
import { phoneRows } from './phone-list.ts';

const phone = (phoneId: string, name: string, lastSeen: number, over: Partial<PhoneEntry> = {}) =>
  ({
    phoneId,
    name,
    firstSeen: 1,
    lastSeen,
    revoked: false,
    presence: false,
    state: 'approved',
    ...over,
  }) as PhoneEntry;

describe('SC7: Machine › Phones lists this phone first and tells phones apart', () => {
  it('SC7: this phone first, then waiting phones, then by last seen (newest first), revoked last', () => {
    const rows = phoneRows(
      [
        phone('old', 'Old tablet', 10),
        phone('gone', 'Lost phone', 90, { revoked: true, state: 'revoked' }),
        phone('wait', 'New phone', 5, { state: 'pending' }),
        phone('recent', 'Work phone', 50),
        phone('me', 'Pixel 7 · Chrome', 1),
      ],
      'me',
    );
    expect(rows.map((r) => r.phone.phoneId)).toEqual(['me', 'wait', 'recent', 'old', 'gone']);
    expect(rows.map((r) => r.mine)).toEqual([true, false, false, false, false]);
  });

  it('SC7: phones that share a name (spaces aside) are marked; a unique name is not', () => {
    const rows = phoneRows(
      [
        phone('a', 'Pixel 7 · Chrome', 3),
        phone('b', 'Pixel 7 · Chrome ', 2),
        phone('c', 'iPhone · Safari', 1),
      ],
      undefined,
    );
    expect(Object.fromEntries(rows.map((r) => [r.phone.phoneId, r.sameName]))).toEqual({
      a: true,
      b: true,
      c: false,
    });
  });
});
