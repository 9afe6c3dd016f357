import type { MachineHandle } from './machine.ts';

// E6 at the desk: `phones` lists every phone that registered; `revoke-phone <id>` cuts one off
// (the remaining phones move to a new room by themselves, and the pairing code shown from then on
// is the new one). Names are the phones' own text: the terminal makes them safe to print (H5).

const short = (id: string) => id.slice(0, 8);
const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

export function describePhones(machine: MachineHandle): string[] {
  const phones = machine.phones();
  if (phones.length === 0) return ['no phones registered'];
  return phones.map(
    (p) =>
      `phone ${short(p.phoneId)}  ${p.revoked ? 'REVOKED' : 'active '}  ${p.name}  (last seen ${when(p.lastSeen)} UTC${p.presence ? '; presence credential' : ''})`,
  );
}

export function revokePhoneAtDesk(machine: MachineHandle, phoneId: string): string[] {
  const r = machine.revokePhone(phoneId);
  if (!r.ok) return [r.message];
  return [
    `revoked phone ${short(phoneId)}: the other phones move to a new room by themselves`,
    `new pairing code: ${machine.pairing.code}`,
  ];
}
