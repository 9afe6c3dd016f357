import { describe, expect, it } from 'vitest';
import { PHONE_HELLO_PROBE_MS, PHONE_HELLO_TIMEOUT_MS } from '../../protocol/index.ts';
import { makeConnection, type ConnectionEvent } from './connection.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { makeSocketFactory } from './test-support/fakes.ts';

const ROOM_A = 'roomAAAAAAAAAAAAAAAAAA';
const ROOM_B = 'roomBBBBBBBBBBBBBBBBBB';
const peers = { machine: 1, phone: 1 };

function setup(rooms = [ROOM_A, ROOM_B], random = () => 0.5) {
  const clock = makeManualTimers();
  const sockets = makeSocketFactory();
  const events: ConnectionEvent[] = [];
  const logs: string[] = [];
  const c = makeConnection({
    url: 'ws://relay.test',
    socket: sockets.factory,
    timers: clock,
    now: clock.now,
    random,
    rooms: () => rooms,
    onEvent: (e) => events.push(e),
    log: (l) => logs.push(l),
  });
  return { clock, sockets, events, logs, c };
}

describe('Connection: one socket per relay carrying a hello for every paired room', () => {
  it('sends a phone hello for each room on open and maps each hello-ok back to its room in order', () => {
    const { sockets, events, c } = setup();
    c.start();
    const ws = sockets.last();
    ws.open();
    expect(ws.frames()).toEqual([
      { kind: 'hello', room: ROOM_A, role: 'phone' },
      { kind: 'hello', room: ROOM_B, role: 'phone' },
    ]);
    ws.receive({ kind: 'hello-ok', peers: { machine: 1, phone: 1 } });
    ws.receive({ kind: 'hello-ok', peers: { machine: 0, phone: 1 } });
    const joined = events.filter((e) => e.kind === 'joined');
    expect(joined).toEqual([
      { kind: 'joined', room: ROOM_A, peers: { machine: 1, phone: 1 }, fresh: true },
      { kind: 'joined', room: ROOM_B, peers: { machine: 0, phone: 1 }, fresh: true },
    ]);
    expect(c.status().state).toBe('online');
    expect(sockets.sockets).toHaveLength(1);
  });

  it('a bad-hello refuses only its own room and the socket keeps serving the others', () => {
    const { sockets, events, c } = setup();
    c.start();
    const ws = sockets.last();
    ws.open();
    ws.receive({ kind: 'error', code: 'bad-hello' });
    ws.receive({ kind: 'hello-ok', peers });
    expect(events.find((e) => e.kind === 'refused')).toMatchObject({
      room: ROOM_A,
      code: 'bad-hello',
    });
    expect(c.isJoined(ROOM_A)).toBe(false);
    expect(c.isJoined(ROOM_B)).toBe(true);
  });

  it('ignores frames it cannot parse and logs only their error code', () => {
    const { sockets, logs, events, c } = setup();
    c.start();
    sockets.last().open();
    sockets.last().receive('{"kind":"secret-stuff","x":"PLAINTEXT"}');
    expect(logs.join('\n')).not.toContain('PLAINTEXT');
    expect(events.filter((e) => e.kind === 'frame')).toEqual([]);
  });
});

describe('D5: the phone detects a dead relay link with hello probes', () => {
  it('re-sends a hello for one joined room every PHONE_HELLO_PROBE_MS and stays up when answered', () => {
    const { sockets, clock, c } = setup([ROOM_A]);
    c.start();
    const ws = sockets.last();
    ws.open();
    ws.receive({ kind: 'hello-ok', peers });
    clock.advance(PHONE_HELLO_PROBE_MS);
    expect(ws.frames()).toHaveLength(2);
    expect(ws.frames()[1]).toEqual({ kind: 'hello', room: ROOM_A, role: 'phone' });
    ws.receive({ kind: 'hello-ok', peers });
    clock.advance(PHONE_HELLO_TIMEOUT_MS);
    expect(ws.closedWith).toBeNull();
    expect(sockets.sockets).toHaveLength(1);
  });

  it('reconnects when a probe gets no hello-ok within PHONE_HELLO_TIMEOUT_MS', () => {
    const { sockets, clock, events, c } = setup([ROOM_A]);
    c.start();
    const ws = sockets.last();
    ws.open();
    ws.receive({ kind: 'hello-ok', peers });
    clock.advance(PHONE_HELLO_PROBE_MS + PHONE_HELLO_TIMEOUT_MS - 1);
    expect(ws.closedWith).toBeNull();
    clock.advance(1);
    expect(ws.closedWith).not.toBeNull();
    expect(c.status().state).toBe('offline');
    expect(events.some((e) => e.kind === 'socket-closed')).toBe(true);
    clock.advance(30_000);
    expect(sockets.sockets).toHaveLength(2);
  });

  it('a probe reply on a stale socket is not taken for the new one', () => {
    const { sockets, clock, c } = setup([ROOM_A]);
    c.start();
    const first = sockets.last();
    first.open();
    first.receive({ kind: 'hello-ok', peers });
    clock.advance(PHONE_HELLO_PROBE_MS + PHONE_HELLO_TIMEOUT_MS + 30_000);
    first.receive({ kind: 'hello-ok', peers });
    expect(c.isJoined(ROOM_A)).toBe(false);
  });

  it('suspend closes the socket and does not reconnect until kick (app hidden, then visible)', () => {
    const { sockets, clock, c } = setup([ROOM_A]);
    c.start();
    sockets.last().open();
    sockets.last().receive({ kind: 'hello-ok', peers });
    c.suspend();
    expect(sockets.last().closedWith?.code).toBe(1000);
    clock.advance(120_000);
    expect(sockets.sockets).toHaveLength(1);
    c.kick();
    expect(sockets.sockets).toHaveLength(2);
    expect(c.status().state).toBe('connecting');
  });
});

describe('Reconnect: jittered backoff 0.5 s → 30 s, unlimited, and at once on kick', () => {
  it('waits a full-jitter delay that grows to the 30 s cap and never gives up', () => {
    const { sockets, clock, c } = setup([ROOM_A], () => 0.999);
    c.start();
    const gaps: number[] = [];
    for (let i = 0; i < 12; i++) {
      const before = sockets.sockets.length;
      const t0 = clock.now();
      sockets.last().drop();
      let waited = 0;
      while (sockets.sockets.length === before) {
        clock.advance(10);
        waited += 10;
        if (waited > 31_000) throw new Error('no reconnect within 31 s');
      }
      gaps.push(clock.now() - t0);
    }
    expect(gaps[0]).toBeLessThanOrEqual(500);
    expect(gaps[1]).toBeLessThanOrEqual(1_000);
    expect(gaps[1]).toBeGreaterThan(gaps[0]!);
    expect(gaps.at(-1)).toBeGreaterThan(29_000);
    expect(gaps.at(-1)).toBeLessThanOrEqual(30_000);
  });

  it('kick reconnects at once while waiting for a retry (online event), and resets the backoff', () => {
    const { sockets, c } = setup([ROOM_A], () => 0.999);
    c.start();
    for (let i = 0; i < 5; i++) sockets.last().drop();
    expect(sockets.sockets).toHaveLength(1);
    c.kick();
    expect(sockets.sockets).toHaveLength(2);
  });

  it('goes offline with the time it happened, and online again only after a hello-ok', () => {
    const { sockets, clock, c } = setup([ROOM_A]);
    c.start();
    sockets.last().open();
    sockets.last().receive({ kind: 'hello-ok', peers });
    const droppedAt = clock.now();
    sockets.last().drop();
    expect(c.status()).toEqual({ state: 'offline', since: droppedAt });
    clock.advance(1_000);
    sockets.last().open();
    expect(c.status().state).toBe('offline');
    sockets.last().receive({ kind: 'hello-ok', peers });
    expect(c.status().state).toBe('online');
  });
});

describe('D10 at the socket: a restart for changed rooms leaves nothing silently in flight', () => {
  it('restart reports the old socket closed and joins the rooms again on a new one', () => {
    const { sockets, events, c } = setup([ROOM_A]);
    c.start();
    sockets.last().open();
    sockets.last().receive({ kind: 'hello-ok', peers });
    c.restart();
    expect(events.filter((e) => e.kind === 'socket-closed')).toHaveLength(1);
    expect(sockets.sockets).toHaveLength(2);
    sockets.last().open();
    expect(sockets.last().frames()).toEqual([{ kind: 'hello', room: ROOM_A, role: 'phone' }]);
  });
});
