import { describe, expect, it } from 'vitest';
import { compactPush, generateSecret, roomKeys, seal, toBase64 } from '../../protocol/index.ts';
import { notificationFor } from './notification.ts';
import { openPush, UNREADABLE_REASONS } from './open-push.ts';
import { roomsFromPairings } from './rooms.ts';
import { DEFAULT_PUSH_SETTINGS } from '../../page-worker/push-settings.ts';
import { makeRoom, pairedMachine } from './test-support/rooms.ts';

const laptop = makeRoom('laptop');
const desktop = makeRoom('desktop');
const approval = compactPush({
  kind: 'approval',
  sessionId: 's-1',
  title: 'Refactor the parser',
  approvalId: 'a-1',
});

describe('D6: the push body is the sealed compact payload, opened with every stored room key', () => {
  it('opens with the right key among several and names that machine', () => {
    const opened = openPush(seal(approval, desktop.key), [laptop, desktop]);
    expect(opened).toMatchObject({ ok: true, room: { machine: 'desktop' }, push: approval });
  });

  it('a wrong key (machine re-paired elsewhere) is unreadable: no-key-opens', () => {
    const stranger = roomKeys(generateSecret());
    const opened = openPush(seal(approval, stranger.key), [laptop, desktop]);
    expect(opened).toMatchObject({ ok: false, reason: UNREADABLE_REASONS.noKeyOpens });
  });

  it('garbage bodies are unreadable, never thrown', () => {
    for (const body of ['not base64 at all', toBase64(new Uint8Array(10)), '{"v":1}', '']) {
      const opened = openPush(body, [laptop]);
      expect(opened.ok).toBe(false);
    }
    expect(openPush(null, [laptop])).toMatchObject({ reason: UNREADABLE_REASONS.noBody });
  });

  it('no pairing stored at all: no-pairings', () => {
    expect(openPush(seal(approval, laptop.key), [])).toMatchObject({
      ok: false,
      reason: UNREADABLE_REASONS.noPairings,
    });
  });

  it('a key opens it but the kind is unknown (newer machine): not-understood, machine known', () => {
    const future = { ...approval, kind: 'deploy' };
    const opened = openPush(seal(future, laptop.key), [laptop]);
    expect(opened).toMatchObject({
      ok: false,
      reason: UNREADABLE_REASONS.notUnderstood,
      room: { machine: 'laptop' },
    });
    const v2 = openPush(seal({ ...approval, v: 2 }, laptop.key), [laptop]);
    expect(v2).toMatchObject({ ok: false, reason: UNREADABLE_REASONS.notUnderstood });
  });

  it('every one of those outcomes still becomes a notification (browsers revoke silent pushes)', () => {
    const bodies = [
      seal(approval, laptop.key),
      seal(approval, roomKeys(generateSecret()).key),
      'garbage',
      seal({ ...approval, kind: 'deploy' }, laptop.key),
    ];
    for (const body of bodies) {
      const spec = notificationFor(openPush(body, [laptop]), DEFAULT_PUSH_SETTINGS, 2);
      expect(spec.title.length).toBeGreaterThan(0);
      expect(spec.options.body.length).toBeGreaterThan(0);
      expect(spec.options.tag.length).toBeGreaterThan(0);
    }
  });
});

describe('Stored pairings (the app writes them; the worker only reads)', () => {
  it('derives the room id from the secret and skips malformed entries', () => {
    const good = pairedMachine('laptop');
    const rooms = roomsFromPairings([
      { ...good, roomId: 'forged-room-id' },
      { relay: 'wss://x', machine: 'no secret' },
      { ...good, secret: 'dG9vIHNob3J0' },
      null,
      'string',
    ]);
    expect(rooms).toHaveLength(1);
    expect(rooms[0]!.machine).toBe('laptop');
    expect(rooms[0]!.roomId).not.toBe('forged-room-id');
    expect(rooms[0]!.roomId).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
  it('anything but an array is no pairings', () => {
    expect(roomsFromPairings(undefined)).toEqual([]);
    expect(roomsFromPairings({ pairings: [] })).toEqual([]);
  });
});
