import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { makeBoxKeyPair, type MachineMessage } from '../protocol/index.ts';
import { makeUpdateScheduler } from './activity.ts';
import type { Core } from './core.ts';
import { makeLocalToolHost } from './local-tool-host.ts';
import { makePending } from './pending.ts';
import { makePhoneActions } from './phone-actions.ts';
import { makePhoneIdentity } from './phone-identity.ts';
import { makePhones } from './phones.ts';
import { makePresenceGate, type PresencePolicy } from './presence-gate.ts';
import { makeRules } from './rules.ts';
import { makeSeenRequests } from './seen-requests.ts';
import { makeSessionStore } from './sessions.ts';
import { makeManualTimers } from './test-support/manual-timers.ts';
import { makeTestStore } from './test-support/store.ts';
import { makeTurns } from './turns.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

// The machine's action layer without a relay: what it sends is captured, so a test can push
// hundreds of actions through it (the relay's D3 rate limit would refuse them on the wire).
export function setup(
  o: {
    maxPages?: number;
    maxSeen?: number;
    requirePresence?: PresencePolicy;
    allowFullAccess?: boolean;
    roots?: string[];
  } = {},
) {
  const timers = makeManualTimers(Date.now());
  const sent: MachineMessage[] = [];
  const t = makeTestStore(o.maxPages !== undefined ? { maxPages: o.maxPages } : {});
  cleanups.push(() => t.cleanup());
  const now = () => timers.now();
  const sessions = makeSessionStore({ store: t.store, transcripts: t.transcripts, now });
  const phones = makePhones(t.store, now);
  const presence = makePresenceGate({ policy: o.requirePresence ?? 'none', phones, log: () => {} });
  const pending = makePending({
    timers,
    needsPresence: presence.approvalNeedsPresence,
    events: { approvalOpened() {}, approvalClosed() {}, questionOpened() {}, questionClosed() {} },
  });
  const scheduler = makeUpdateScheduler({ coalesceMs: 800, timers, emit: () => {} });
  const host = makeLocalToolHost({ roots: [] });
  const core: Core = {
    timers,
    log: () => {},
    sessions,
    pending,
    scheduler,
    send: (m) => sent.push(m),
    host: () => host,
    roots: o.roots ?? [],
    rules: makeRules({ store: t.store, now, fits: () => true }),
    rulesChanged: () => {},
    decidedBy: (id) => identity.by(id),
    presence,
  };
  const identity = makePhoneIdentity({
    core,
    phones,
    rooms: () => {
      throw new Error('no rooms without a relay');
    },
    boxKeyPair: makeBoxKeyPair(),
    relay: 'ws://127.0.0.1:9',
    machineName: 'test',
  });
  const actions = makePhoneActions({
    core,
    turns: makeTurns(core),
    roots: o.roots ?? [],
    allowFullAccess: o.allowFullAccess ?? false,
    seen: makeSeenRequests(t.store, {
      now,
      ...(o.maxSeen !== undefined ? { max: o.maxSeen } : {}),
    }),
    identity,
    phones,
    sendSnapshotAndRemind: () => {},
  });
  return { timers, sent, pending, actions, store: t.store, phones };
}

describe('D11: every requestId seen within the window is remembered, not only the last 256', () => {
  it('a duplicate whose result left the 256-entry LRU is refused, never run again', async () => {
    const { sent, pending, actions } = setup();
    const first = randomUUID();
    const { approval } = pending.openApproval('s', 't', 'd', { tool: 'run' });
    await actions.handle({
      v: 1,
      type: 'approval.respond',
      ts: Date.now(),
      requestId: first,
      approvalId: approval.approvalId,
      decision: 'deny',
    });
    expect(sent.at(-1)).toMatchObject({ type: 'approval.closed', resolution: 'deny' });
    for (let i = 0; i < 300; i++) {
      await actions.handle({
        v: 1,
        type: 'approval.respond',
        ts: Date.now(),
        requestId: randomUUID(),
        approvalId: randomUUID(),
        decision: 'allow',
      });
    }
    const second = pending.openApproval('s', 't', 'd', { tool: 'run' }).approval;
    // Same requestId, now aimed at a new pending approval: a replayed "allow" must not land.
    await actions.handle({
      v: 1,
      type: 'approval.respond',
      ts: Date.now(),
      requestId: first,
      approvalId: second.approvalId,
      decision: 'allow',
    });
    expect(sent.at(-1)).toMatchObject({ type: 'error', context: 'approval.respond' });
    expect((sent.at(-1) as { message: string }).message).toContain('already handled');
    expect(pending.approval(second.approvalId)).toBeDefined();
  });

  it('a duplicate still in the LRU gets its original result again, even aimed at another id', async () => {
    const { sent, pending, actions } = setup();
    const rid = randomUUID();
    const a = pending.openApproval('s', 't', 'd', { tool: 'run' }).approval;
    await actions.handle({
      v: 1,
      type: 'approval.respond',
      ts: Date.now(),
      requestId: rid,
      approvalId: a.approvalId,
      decision: 'allow',
    });
    const original = sent.at(-1);
    const b = pending.openApproval('s', 't', 'd', { tool: 'run' }).approval;
    await actions.handle({
      v: 1,
      type: 'approval.respond',
      ts: Date.now(),
      requestId: rid,
      approvalId: b.approvalId,
      decision: 'allow',
    });
    expect(sent.at(-1)).toBe(original);
    expect(pending.approval(b.approvalId)).toBeDefined();
  });
});

describe('H3: an action whose requestId cannot be remembered is not run', () => {
  const respond = (approvalId: string) => ({
    v: 1 as const,
    type: 'approval.respond' as const,
    ts: Date.now(),
    requestId: randomUUID(),
    approvalId,
    decision: 'allow' as const,
  });

  it('H3: the store refuses the write (full disk): the approval stays pending, the phone is told', async () => {
    const { sent, pending, actions, store } = setup({ maxPages: 8 });
    // Fill the store to the last byte, as a full disk would: big rows, then ever smaller ones.
    const filler = store.db.prepare(
      'INSERT INTO seen_requests (request_id, type, seen_at) VALUES (?, ?, ?)',
    );
    let n = 0;
    for (const size of [200, 50, 10, 1]) {
      for (let tries = 0; tries < 10_000; tries++) {
        try {
          filler.run(`${n++}`.padEnd(size, 'f'), 'x', Date.now());
        } catch {
          break;
        }
      }
    }
    const a = pending.openApproval('s', 't', 'd', { tool: 'run' }).approval;
    await actions.handle(respond(a.approvalId));
    expect(sent.at(-1)).toMatchObject({ type: 'error', context: 'approval.respond' });
    expect((sent.at(-1) as { message: string }).message).toContain('could not record it');
    expect(pending.approval(a.approvalId)).toBeDefined();
  });

  it('H3: past MAX_SEEN_REQUESTS within the window a new action is refused, not run', async () => {
    const { sent, pending, actions } = setup({ maxSeen: 2 });
    for (let i = 0; i < 2; i++) await actions.handle(respond(randomUUID()));
    const a = pending.openApproval('s', 't', 'd', { tool: 'run' }).approval;
    await actions.handle(respond(a.approvalId));
    expect((sent.at(-1) as { message: string }).message).toContain('too many requests');
    expect(pending.approval(a.approvalId)).toBeDefined();
  });
});
