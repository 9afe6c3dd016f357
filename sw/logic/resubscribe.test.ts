import { afterEach, describe, expect, it } from 'vitest';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { resubscribeRooms } from './resubscribe.ts';
import { nodeSocket, startFakeRelay, stopAllFakeRelays } from './test-support/fake-relay.ts';

afterEach(stopAllFakeRelays);

const subscription = {
  endpoint: 'https://push.example/new',
  keys: { p256dh: 'BP'.padEnd(87, 'A'), auth: 'A'.repeat(22) },
};

describe('N2: pushsubscriptionchange moves every room to the new endpoint', () => {
  it('joins each room as phone, unsubscribes the old endpoint and subscribes the new one', async () => {
    const relay = await startFakeRelay({ machinesPresent: 0 });
    const rooms = ['room-aaaaaaaa', 'room-bbbbbbbb'];
    const reached = await resubscribeRooms({
      relayUrl: relay.url,
      roomIds: rooms,
      oldEndpoint: 'https://push.example/old',
      subscription,
      socket: nodeSocket,
      timers: makeManualTimers(),
    });
    expect(reached).toEqual(rooms);
    await relay.closed();
    expect(relay.frames).toEqual([
      { kind: 'hello', room: rooms[0], role: 'phone' },
      { kind: 'hello', room: rooms[1], role: 'phone' },
      { kind: 'push-unsubscribe', room: rooms[0], endpoint: 'https://push.example/old' },
      { kind: 'push-subscribe', room: rooms[0], subscription },
      { kind: 'push-unsubscribe', room: rooms[1], endpoint: 'https://push.example/old' },
      { kind: 'push-subscribe', room: rooms[1], subscription },
    ]);
  });

  it('the same endpoint is only refreshed, never unsubscribed', async () => {
    const relay = await startFakeRelay({ machinesPresent: 1 });
    await resubscribeRooms({
      relayUrl: relay.url,
      roomIds: ['room-aaaaaaaa'],
      oldEndpoint: subscription.endpoint,
      subscription,
      socket: nodeSocket,
      timers: makeManualTimers(),
    });
    await relay.closed();
    expect(relay.frames.map((f) => f.kind)).toEqual(['hello', 'push-subscribe']);
  });

  it('an unreachable relay resolves with no rooms reached (the page retries on its next start)', async () => {
    const relay = await startFakeRelay({ machinesPresent: 0 });
    await relay.stop();
    const reached = await resubscribeRooms({
      relayUrl: relay.url,
      roomIds: ['room-aaaaaaaa'],
      oldEndpoint: null,
      subscription,
      socket: nodeSocket,
      timers: makeManualTimers(),
    });
    expect(reached).toEqual([]);
  });
});
