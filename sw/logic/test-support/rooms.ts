// Test helper: real pairing secrets and the stored-pairings records the app writes.
import { generateSecret, toBase64Url } from '../../../protocol/index.ts';
import { roomsFromPairings, type RoomKey } from '../rooms.ts';

export function pairedMachine(machine: string, relay = 'wss://relay.example') {
  return { roomId: '', relay, machine, secret: toBase64Url(generateSecret()), pairedAt: 0 };
}

export function makeRoom(machine: string, relay?: string): RoomKey {
  const [room] = roomsFromPairings([pairedMachine(machine, relay)]);
  if (!room) throw new Error('unreachable: a fresh secret always yields a room');
  return room;
}
