import { describe, expect, it } from 'vitest';
import { REQUEST_WINDOW_MS, seal } from '../../protocol/index.ts';
import { OUTBOX_KEY } from './outbox.ts';
import { PAIRINGS_KEY } from '../../page-worker/store-layout.ts';
import { makeMemoryKv } from './kv.ts';
import {
  connect,
  flush,
  machineOf,
  makeHarness,
  pairingFor,
  RELAY,
} from './test-support/harness.ts';

const approval = (id: string) => ({
  type: 'approval.request',
  approvalId: id,
  sessionId: 's1',
  title: `Run ${id}`,
  detail: 'npm test',
  createdAt: 1,
});

async function paired(machines = 1) {
  const h = makeHarness();
  await h.client.start();
  const p = pairingFor('laptop', 7);
  await h.client.pair(p);
  const m = machineOf(p);
  const ws = h.sockets.last();
  connect(ws, machines);
  return { ...h, m, ws, p };
}

describe('Pairing', () => {
  it('stores the secret only in the key/value store and joins the room as phone', async () => {
    const { kv, ws, m, client } = await paired();
    const stored = (kv as ReturnType<typeof makeMemoryKv>).data.get(PAIRINGS_KEY) as {
      roomId: string;
    }[];
    expect(stored.map((s) => s.roomId)).toEqual([m.roomId]);
    expect(ws.frames()[0]).toEqual({ kind: 'hello', room: m.roomId, role: 'phone' });
    expect(ws.sent.join('')).not.toContain((stored[0] as unknown as { secret: string }).secret);
    expect(client.state().machines.map((v) => v.name)).toEqual(['laptop']);
  });

  it('re-pairing the same machine replaces its secret and room (one entry, new room)', async () => {
    const { client, kv, m } = await paired();
    const again = pairingFor('laptop', 9);
    await client.pair(again);
    const stored = (kv as ReturnType<typeof makeMemoryKv>).data.get(PAIRINGS_KEY) as {
      roomId: string;
    }[];
    expect(stored).toHaveLength(1);
    expect(stored[0]!.roomId).toBe(machineOf(again).roomId);
    expect(stored[0]!.roomId).not.toBe(m.roomId);
  });

  it('two machines on one relay share one socket, with a hello for each room', async () => {
    const { client, sockets, ws, m } = await paired();
    const second = pairingFor('desktop', 3);
    await client.pair(second);
    expect(sockets.sockets).toHaveLength(1);
    expect(
      ws
        .frames()
        .filter((f) => f.kind === 'hello')
        .map((f) => f.room),
    ).toEqual([m.roomId, machineOf(second).roomId]);
  });
});

describe('Messages are opened with the room key (D12, D13)', () => {
  it('shows sessions and open approvals from sealed frames, deduped by id (D8)', async () => {
    const { client, m, ws } = await paired();
    m.say(ws, {
      type: 'session.snapshot',
      sessions: [
        {
          sessionId: 's1',
          title: 'T',
          cwd: '/w',
          state: 'running',
          lastActivity: 5,
          dispatched: false,
        },
      ],
    });
    m.say(ws, approval('a1'));
    m.say(ws, approval('a1'));
    const view = client.state().machines[0]!;
    expect(Object.keys(view.sessions)).toEqual(['s1']);
    expect(Object.keys(view.approvals)).toEqual(['a1']);
  });

  it('D13: a frame that does not open marks "re-pair needed" once, keeps the secret, and clears on the next good frame', async () => {
    const { client, m, ws, logs, kv } = await paired();
    const wrong = new Uint8Array(32).fill(1);
    ws.receive({
      kind: 'msg',
      room: m.roomId,
      payload: seal({ v: 1, type: 'session.snapshot', ts: 0, sessions: [] }, wrong),
    });
    ws.receive({ kind: 'msg', room: m.roomId, payload: 'garbage!!' });
    expect(client.state().machines[0]!.repairNeeded).toBe(true);
    expect(logs.filter((l) => l.includes('re-pair needed'))).toHaveLength(1);
    expect(
      ((kv as ReturnType<typeof makeMemoryKv>).data.get(PAIRINGS_KEY) as unknown[]).length,
    ).toBe(1);
    expect(client.blocked(m.roomId)).toBe('repair-needed');
    m.say(ws, { type: 'session.snapshot', sessions: [] });
    expect(client.state().machines[0]!.repairNeeded).toBe(false);
  });

  it('D12: a phone→machine type reflected back is ignored and logged by type only', async () => {
    const { client, m, ws, logs } = await paired();
    m.say(ws, {
      type: 'approval.respond',
      requestId: 'r',
      approvalId: 'SECRET-ID',
      decision: 'allow',
    });
    m.say(ws, { type: 'brand.new', secret: 'PLAINTEXT' });
    expect(client.state().machines[0]!.approvals).toEqual({});
    const all = logs.join('\n');
    expect(all).toContain('approval.respond');
    expect(all).not.toContain('SECRET-ID');
    expect(all).not.toContain('PLAINTEXT');
  });

  it('E6: a room.rotate for another phone changes nothing; a phones list is kept as the machine said', async () => {
    const { client, m, ws } = await paired();
    m.say(ws, { type: 'session.snapshot', sessions: [] });
    m.say(ws, { type: 'room.rotate', phoneId: 'p-1', box: 'AAAA' });
    await flush();
    expect(client.state().machines[0]?.roomId).toBe(m.roomId);
    expect(client.state().rotateFailures).toEqual({});
    m.say(ws, { type: 'phones', phones: [] });
    expect(client.state().machines[0]?.phones).toEqual([]);
  });

  it('presence of the machine drives its indicator and asks for a snapshot when it comes back', async () => {
    const { client, m, ws } = await paired(0);
    expect(client.state().machines[0]!.machineOnline).toBe(false);
    ws.receive({ kind: 'presence', room: m.roomId, role: 'machine', online: true });
    expect(client.state().machines[0]!.machineOnline).toBe(true);
    expect(m.heard(ws).map((x) => x.type)).toContain('sessions.get');
  });
});

describe('D11: the phone stamps actions with the machine clock it measured', () => {
  it('corrects ts by the offset seen in machine.status', async () => {
    const { client, m, ws, clock } = await paired();
    m.say(ws, {
      type: 'machine.status',
      ts: clock.now() + 90_000,
      machine: 'laptop',
      pluginVersion: '1',
    });
    m.say(ws, approval('a1'));
    await client.respondApproval(m.roomId, 'a1', 'allow');
    const sent = m.heard(ws).find((x) => x.type === 'approval.respond')!;
    expect(sent.ts).toBe(clock.now() + 90_000);
  });
});

describe('D10: decisions are never lost or doubled', () => {
  it('an approval is Sent, then Unconfirmed when the link drops, re-sent once with the same requestId and ts, and gone when closed', async () => {
    const { client, m, ws, sockets, clock } = await paired();
    m.say(ws, approval('a1'));
    const r = await client.respondApproval(m.roomId, 'a1', 'allow');
    expect(r.ok).toBe(true);
    expect(client.state().outbox.map((e) => e.state)).toEqual(['sent']);
    ws.drop();
    expect(client.state().outbox.map((e) => e.state)).toEqual(['unconfirmed']);
    clock.advance(1_000);
    const ws2 = sockets.last();
    expect(ws2).not.toBe(ws);
    connect(ws2);
    // E1: the decision waits for the machine's snapshot, which says the card is still open.
    expect(m.heard(ws2).filter((x) => x.type === 'approval.respond')).toEqual([]);
    m.say(ws2, {
      type: 'session.snapshot',
      sessions: [],
      open: { approvals: ['a1'], questions: [] },
    });
    const first = m.heard(ws).filter((x) => x.type === 'approval.respond');
    const again = m.heard(ws2).filter((x) => x.type === 'approval.respond');
    expect(again).toEqual(first);
    expect(again).toHaveLength(1);
    expect(client.state().outbox.map((e) => e.state)).toEqual(['sent']);
    m.say(ws2, { type: 'approval.closed', approvalId: 'a1', resolution: 'allow' });
    expect(client.state().outbox).toEqual([]);
    expect(client.state().machines[0]!.approvals).toEqual({});
  });

  it('a second tap sends nothing more', async () => {
    const { client, m, ws } = await paired();
    m.say(ws, approval('a1'));
    const [a, b] = await Promise.all([
      client.respondApproval(m.roomId, 'a1', 'allow'),
      client.respondApproval(m.roomId, 'a1', 'deny'),
    ]);
    await flush();
    const c = await client.respondApproval(m.roomId, 'a1', 'deny');
    expect(m.heard(ws).filter((x) => x.type === 'approval.respond')).toHaveLength(1);
    expect(a.ok && c.ok && a.requestId === c.requestId).toBe(true);
    expect(b.ok).toBe(true);
  });

  it('approvals are never queued offline: refused with the reason, nothing stored or sent', async () => {
    const { client, m, ws } = await paired();
    m.say(ws, approval('a1'));
    ws.drop();
    const r = await client.respondApproval(m.roomId, 'a1', 'allow');
    expect(r).toEqual({ ok: false, code: 'offline' });
    expect(client.state().outbox).toEqual([]);
  });

  it('refused while the machine is offline', async () => {
    const { client, m, ws } = await paired();
    m.say(ws, approval('a1'));
    ws.receive({ kind: 'presence', room: m.roomId, role: 'machine', online: false });
    expect(await client.respondApproval(m.roomId, 'a1', 'deny')).toEqual({
      ok: false,
      code: 'machine-offline',
    });
  });

  it('turns Unconfirmed when no confirmation comes within the deadline', async () => {
    const { client, m, ws, clock } = await paired();
    m.say(ws, approval('a1'));
    await client.respondApproval(m.roomId, 'a1', 'deny');
    clock.advance(10_000);
    expect(client.state().outbox[0]!.state).toBe('unconfirmed');
  });

  it('survives an app restart: the unconfirmed decision is re-sent from storage with the same requestId', async () => {
    const { client, m, ws, kv, clock } = await paired();
    m.say(ws, approval('a1'));
    await client.respondApproval(m.roomId, 'a1', 'allow');
    client.close();
    const sentBefore = m.heard(ws).find((x) => x.type === 'approval.respond');
    const { makeHarness: again } = await import('./test-support/harness.ts');
    const h2 = again({ kv, clock });
    await h2.client.start();
    expect(h2.client.state().outbox.map((e) => e.state)).toEqual(['unconfirmed']);
    const ws2 = h2.sockets.last();
    connect(ws2);
    m.say(ws2, {
      type: 'session.snapshot',
      sessions: [],
      open: { approvals: ['a1'], questions: [] },
    });
    expect(m.heard(ws2).filter((x) => x.type === 'approval.respond')).toEqual([sentBefore]);
  });

  it('an entry older than the machine request window is marked expired and never re-sent', async () => {
    const { client, m, ws, sockets, clock } = await paired();
    m.say(ws, approval('a1'));
    await client.respondApproval(m.roomId, 'a1', 'allow');
    ws.drop();
    clock.advance(REQUEST_WINDOW_MS);
    const ws2 = sockets.last();
    connect(ws2);
    expect(m.heard(ws2).filter((x) => x.type === 'approval.respond')).toEqual([]);
    expect(client.state().outbox[0]!.state).toBe('expired');
  });

  it('dispatch is confirmed by its dispatch.result, a message by the session.update', async () => {
    const { client, m, ws, kv } = await paired();
    const d = await client.dispatch(m.roomId, { prompt: 'hi', cwd: '/w', worktree: false });
    const s = await client.sendMessage(m.roomId, 's1', 'more');
    expect(client.state().outbox).toHaveLength(2);
    if (!d.ok || !s.ok) throw new Error('not sent');
    const sent = m.heard(ws).find((x) => x.type === 'dispatch.request')!;
    expect(sent).toMatchObject({
      requestId: d.requestId,
      prompt: 'hi',
      cwd: '/w',
      worktree: false,
    });
    expect(sent.access).toBeUndefined();
    m.say(ws, { type: 'dispatch.result', requestId: d.requestId, ok: true, sessionId: 's2' });
    m.say(ws, {
      type: 'session.update',
      session: {
        sessionId: 's1',
        title: 'T',
        cwd: '/w',
        state: 'running',
        lastActivity: 5,
        dispatched: false,
      },
    });
    expect(client.state().outbox).toEqual([]);
    expect(client.state().machines[0]!.dispatchResults[d.requestId]).toMatchObject({
      ok: true,
      sessionId: 's2',
    });
    await flush();
    expect((kv as ReturnType<typeof makeMemoryKv>).data.get(OUTBOX_KEY)).toEqual([]);
  });
});

describe('Offline reading', () => {
  it('a restarted phone shows the cached sessions and transcript with their time, before any link', async () => {
    const { client, m, ws, kv, clock } = await paired();
    m.say(ws, {
      type: 'session.snapshot',
      sessions: [
        {
          sessionId: 's1',
          title: 'T',
          cwd: '/w',
          state: 'done',
          lastActivity: 5,
          dispatched: false,
        },
      ],
    });
    const rid = client.getTranscript(m.roomId, 's1');
    m.say(ws, {
      type: 'transcript',
      requestId: rid,
      sessionId: 's1',
      entries: [{ seq: 1, role: 'user', text: 'hello', ts: 1 }],
      more: true,
    });
    const at = clock.now();
    clock.advance(1_000);
    client.close();
    await flush();
    const { makeHarness: again } = await import('./test-support/harness.ts');
    const h2 = again({ kv, clock });
    await h2.client.start();
    const view = h2.client.state().machines[0]!;
    expect(view.fromCache).toBe(true);
    expect(view.asOf).toBe(at);
    expect(Object.keys(view.sessions)).toEqual(['s1']);
    expect(view.transcripts.s1).toMatchObject({ entries: [{ seq: 1, text: 'hello' }] });
    expect(view.transcripts.s1!.spans[0]!.lo).toBe(1); // "more": not the start of the conversation
  });
});

describe('Forget', () => {
  it('deletes the secret and reconnects without the room', async () => {
    const { client, m, kv, sockets } = await paired();
    const other = pairingFor('desktop', 4);
    await client.pair(other);
    await client.forget(m.roomId);
    const stored = (kv as ReturnType<typeof makeMemoryKv>).data.get(PAIRINGS_KEY) as {
      roomId: string;
    }[];
    expect(stored.map((s) => s.roomId)).toEqual([machineOf(other).roomId]);
    const ws = sockets.last();
    ws.open();
    expect(ws.frames().map((f) => f.room)).toEqual([machineOf(other).roomId]);
    expect(RELAY).toContain('127.0.0.1');
  });
});

describe('D10: an action that cannot be stored is not sent', () => {
  it('refuses with storage-failed, sends nothing and leaves no Sent entry behind', async () => {
    const kv = makeMemoryKv();
    const h = makeHarness({ kv });
    await h.client.start();
    const p = pairingFor('laptop', 7);
    await h.client.pair(p);
    const m = machineOf(p);
    const ws = h.sockets.last();
    connect(ws);
    m.say(ws, approval('a1'));
    kv.set = () => Promise.reject(Object.assign(new Error('clone'), { name: 'DataCloneError' }));
    expect(await h.client.respondApproval(m.roomId, 'a1', 'allow')).toEqual({
      ok: false,
      code: 'storage-failed',
    });
    expect(h.client.state().outbox).toEqual([]);
    expect(m.heard(ws).filter((x) => x.type === 'approval.respond')).toEqual([]);
  });
});

describe('Relay error frames are shown, not dropped', () => {
  it('a too-large refusal becomes a notice for the relay, which the owner can dismiss', async () => {
    const { client, ws } = await paired();
    ws.receive({ kind: 'error', code: 'too-large', message: 'frame is 20000 bytes' });
    expect(client.state().relayNotices[RELAY]).toMatchObject({ code: 'too-large' });
    client.dismissNotice(RELAY);
    expect(client.state().relayNotices[RELAY]).toBeUndefined();
  });
});

describe('Seams for the push client (N2)', () => {
  it('reports every join, lists paired rooms, and sends relay frames only on a joined room', async () => {
    const joined: string[] = [];
    const h = makeHarness();
    const client = (await import('./client.ts')).makeClient({
      kv: h.kv,
      socket: h.sockets.factory,
      timers: h.clock,
      now: h.clock.now,
      onJoined: (room) => joined.push(room),
    });
    await client.start();
    const p = pairingFor('laptop', 7);
    await client.pair(p);
    const m = machineOf(p);
    const frame = {
      kind: 'push-unsubscribe',
      room: m.roomId,
      endpoint: 'https://push.example/x',
    } as const;
    expect(client.sendFrame(m.roomId, frame)).toBe(false);
    const ws = h.sockets.last();
    connect(ws);
    expect(joined).toEqual([m.roomId]);
    expect(client.pairedRooms()).toEqual([{ roomId: m.roomId, relay: RELAY }]);
    expect(client.sendFrame(m.roomId, frame)).toBe(true);
    expect(ws.frames().at(-1)).toEqual(frame);
  });
});
