import type { MachineHandle } from '../machine.ts';

// E6 + E9 at the desk: `phones` lists every phone with its state and box-key fingerprint;
// `phones approve <id>` lets a waiting phone in, `phones forget <id>` drops a waiting or revoked
// one's record; `revoke-phone <id>` cuts one off
// (the remaining phones move to a new room by themselves, and the pairing code shown from then on
// is the new one). Names are the phones' own text: the terminal makes them safe to print (H5).

const short = (id: string) => id.slice(0, 8);
const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

export function describePhones(machine: MachineHandle): string[] {
  const phones = machine.phones();
  if (phones.length === 0) return ['no phones registered'];
  return phones.map(
    (p) =>
      `phone ${short(p.phoneId)}  ${STATE_WORD[p.state ?? (p.revoked ? 'revoked' : 'approved')]}  ${p.fingerprint ?? ''}  ${p.name}  (last seen ${when(p.lastSeen)} UTC${p.presence ? '; presence credential' : ''})`,
  );
}

// E9: a waiting phone stands out; the owner compares its fingerprint with the phone's screen.
const STATE_WORD = { approved: 'active ', pending: 'WAITING', revoked: 'REVOKED' } as const;

export function approvePhoneAtDesk(machine: MachineHandle, phoneId: string): string[] {
  const r = machine.approvePhone(phoneId);
  return [r.ok ? `approved phone ${short(phoneId)}: it may act from now on` : r.message];
}

export function forgetPhoneAtDesk(machine: MachineHandle, phoneId: string): string[] {
  const r = machine.forgetPhone(phoneId);
  return [r.ok ? `forgot phone ${short(phoneId)}` : r.message];
}

export function revokePhoneAtDesk(machine: MachineHandle, phoneId: string): string[] {
  const r = machine.revokePhone(phoneId);
  if (!r.ok) return [r.message];
  return [
    `revoked phone ${short(phoneId)}: the other phones move to a new room by themselves`,
    `new pairing code: ${machine.pairing.code}`,
  ];
}
