import type { PhoneEntry } from '../../protocol/index.ts';

// SC7: Machine › Phones reads as a person thinks of their phones — this phone first, then the
// ones waiting for the owner, then the others by when the machine last saw them, revoked last —
// and two phones that share a name (every browser of one model starts as "Pixel 7 · Chrome")
// are told apart by when each was paired, with the start of its id as the last resort.

const rank = (p: PhoneEntry, mine: string | undefined): number =>
  p.phoneId === mine ? 0 : p.revoked || p.state === 'revoked' ? 3 : p.state === 'pending' ? 1 : 2;

export type PhoneRowInfo = {
  phone: PhoneEntry;
  mine: boolean;
  /** Another phone in the list has the same name (after trimming). */
  sameName: boolean;
};

export function phoneRows(phones: readonly PhoneEntry[], mine: string | undefined): PhoneRowInfo[] {
  const names = new Map<string, number>();
  for (const p of phones) names.set(p.name.trim(), (names.get(p.name.trim()) ?? 0) + 1);
  return [...phones]
    .sort(
      (a, b) =>
        rank(a, mine) - rank(b, mine) ||
        b.lastSeen - a.lastSeen ||
        a.phoneId.localeCompare(b.phoneId),
    )
    .map((phone) => ({
      phone,
      mine: phone.phoneId === mine,
      sameName: (names.get(phone.name.trim()) ?? 0) > 1,
    }));
}
