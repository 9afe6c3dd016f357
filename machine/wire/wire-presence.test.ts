import { writeFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { open, parseCompactPush, type MsgFrame } from '../../protocol/index.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { dispatch, finalOf, is, relaySuite, rid } from '../test-support/relay-suite.ts';
import { until } from '../../testkit/until.ts';

const suite = relaySuite();

describe('machine.status', () => {
  it('machine.status on connect and whenever a phone joins, with allowedRoots and capabilities', async () => {
    const w = await suite.world();
    expect(w.sent.map((s) => s.message.type)).toContain('machine.status');
    const phone = await w.phone();
    expect(await phone.waitFor(is('machine.status'))).toMatchObject({
      machine: 'test-machine',
      allowedRoots: [w.root],
      capabilities: { fullAccessDispatch: false, questionForwarding: true },
    });
    await phone.waitFor(is('session.snapshot'));
  });
});

describe('D8: re-remind', () => {
  it('every still-open approval and question is re-sent when a phone joins and after sessions.get', async () => {
    const w = await suite.world();
    const a = w.machine.raiseApproval({ title: 'Deploy', detail: 'ship it' });
    const q = w.machine.raiseQuestion({
      items: [
        {
          id: 'i',
          prompt: 'Which?',
          options: [{ id: 'x', label: 'X' }],
          multiSelect: false,
          allowFreeText: false,
        },
      ],
    });
    const phone = await w.phone();
    await phone.waitFor((m) => m.type === 'approval.request' && m.approvalId === a.approvalId);
    await phone.waitFor((m) => m.type === 'question.request' && m.questionId === q.questionId);
    const snapshotAt = phone.messages.findIndex(is('session.snapshot'));
    expect(snapshotAt).toBeGreaterThanOrEqual(0);
    expect(phone.messages.findIndex(is('approval.request'))).toBeGreaterThan(snapshotAt);
    const from = phone.messages.length;
    phone.send({ type: 'sessions.get' });
    await phone.waitFor(
      (m) => m.type === 'approval.request' && m.approvalId === a.approvalId,
      5000,
      from,
    );
    await phone.waitFor(
      (m) => m.type === 'question.request' && m.questionId === q.questionId,
      5000,
      from,
    );
    // Closed ones are not re-sent.
    w.machine.answerApproval(a.approvalId, 'deny');
    await phone.waitFor(is('approval.closed'));
    const from2 = phone.messages.length;
    phone.send({ type: 'sessions.get' });
    await phone.waitFor((m) => m.type === 'question.request', 5000, from2);
    expect(phone.messages.slice(from2).filter(is('approval.request'))).toEqual([]);
  });

  it('session.snapshot on phone join and on sessions.get', async () => {
    const w = await suite.world();
    const id = w.machine.startSession('say: local work', w.root);
    const phone = await w.phone();
    const snap = await phone.waitFor(is('session.snapshot'));
    expect(snap.sessions.map((s) => s.sessionId)).toEqual([id]);
    expect(snap.sessions[0]).toMatchObject({
      dispatched: false,
      title: 'say: local work',
      live: true,
    });
  });
});

describe('session.snapshot across envelopes', () => {
  it('sessions that do not fit one 16 KiB snapshot: the newest go in it, the rest follow as session.update', async () => {
    const w = await suite.world();
    const deep = path.join(w.root, 'd'.repeat(200), 'e'.repeat(200));
    mkdirSync(deep, { recursive: true });
    for (let i = 0; i < 40; i++)
      w.machine.startSession(`say: session number ${i} ${'t'.repeat(70)}`, deep);
    await until(() => w.machine.sessions().every((s) => s.state === 'done'), 'all turns to end');
    const phone = await w.phone();
    const snap = await phone.waitFor(is('session.snapshot'));
    expect(snap.sessions.length).toBeGreaterThan(5);
    expect(snap.sessions.length).toBeLessThan(40);
    await until(
      () =>
        new Set([
          ...snap.sessions.map((s) => s.sessionId),
          ...phone.messages.filter(is('session.update')).map((u) => u.session.sessionId),
        ]).size === 40,
      'every session',
    );
    const frames = w.sent.filter((s) => s.message.type === 'session.snapshot').map((s) => s.frame);
    expect(frames.every((f) => Buffer.byteLength(f) <= 16384)).toBe(true);
  });
});

describe('D3 rate limit', () => {
  it("a burst above the relay's 20 msg/s (burst 100) is paced by the machine, not refused with `limit` and lost", async () => {
    const w = await suite.world();
    const phone = await w.phone();
    await phone.waitFor(is('session.snapshot'));
    const ids = Array.from(
      { length: 130 },
      (_, i) => w.machine.raiseApproval({ title: `A${i}`, detail: 'd' }).approvalId,
    );
    await until(
      () => phone.messages.filter(is('approval.request')).length >= 130,
      'all 130 approvals',
      15_000,
    );
    expect(phone.messages.filter(is('approval.request')).map((a) => a.approvalId)).toEqual(ids);
    expect(w.log.lines.filter((l) => l.code === 'relay-limit')).toEqual([]);
  });
});

describe('push hints', () => {
  const pushOf = (frame: string, key: Uint8Array) => {
    const f = JSON.parse(frame) as MsgFrame;
    if (!f.push) return null;
    const opened = open(f.push.payload, key);
    if (!opened.ok) throw new Error('push did not open');
    const p = parseCompactPush(opened.value);
    if (!p.ok) throw new Error('bad compact push');
    return { push: p.value, tag: f.push.tag };
  };

  it('only when no phone is online: approval/question/turn.final/error carry a sealed compact push (D9 ids), tag per session; relay receipts shown', async () => {
    const w = await suite.world();
    const probe = await w.phone(); // only to learn the key; leaves at once
    const key = probe.key;
    await probe.close();
    await until(() => !w.machine.status().phoneOnline, 'the machine to see no phone');

    const sessionId = w.machine.startSession('ask: Go? | Yes | No\nfail: stopped', w.root);
    await until(() => w.machine.pendingQuestions().length === 1, 'the question');
    const { approvalId } = w.machine.raiseApproval({ sessionId, title: 'Deploy', detail: 'd' });
    const qFrame = w.sent.find((s) => s.message.type === 'question.request')!;
    const aFrame = w.sent.find((s) => s.message.type === 'approval.request')!;
    expect(pushOf(qFrame.frame, key)).toEqual({
      push: {
        v: 1,
        type: 'push',
        kind: 'question',
        sessionId,
        title: 'Go?',
        questionId: w.machine.pendingQuestions()[0]!.questionId,
        // E5: a question's push says its first prompt.
        what: 'Go?',
      },
      tag: sessionId.replace(/-/g, ''),
    });
    expect(pushOf(aFrame.frame, key)).toMatchObject({
      push: { kind: 'approval', sessionId, title: 'Deploy', approvalId, what: 'Deploy: d' },
      tag: sessionId.replace(/-/g, ''),
    });
    expect(Buffer.byteLength(JSON.parse(aFrame.frame).push.payload)).toBeLessThanOrEqual(3072);
    // The relay has no VAPID subject here: its receipt reaches the terminal.
    await until(
      () => w.log.lines.some((l) => l.code === 'relay-push-disabled'),
      'the relay push receipt',
    );

    w.machine.answerApproval(approvalId, 'allow');
    w.machine.answerQuestion(w.machine.pendingQuestions()[0]!.questionId, [
      { itemId: 'q1', optionIds: ['1'] },
    ]);
    await until(
      () => w.sent.some((s) => s.message.type === 'error' && s.message.sessionId === sessionId),
      'the turn to fail',
    );
    const final = w.sent.find((s) => s.message.type === 'turn.final')!;
    expect(pushOf(final.frame, key)).toMatchObject({ push: { kind: 'done', sessionId } });
    const error = w.sent.find(
      (s) => s.message.type === 'error' && s.message.sessionId === sessionId,
    )!;
    expect(pushOf(error.frame, key)).toMatchObject({
      push: { kind: 'error', sessionId, title: 'Asked "Go?": Yes\nstopped' },
    });
    // Never a push on other types.
    expect(
      w.sent
        .filter((s) => s.push !== undefined)
        .map((s) => s.message.type)
        .sort(),
    ).toEqual(['approval.request', 'error', 'question.request', 'turn.final']);

    // A phone online: no push at all.
    const phone = await w.phone();
    await phone.waitFor(is('session.snapshot'));
    const from = w.sent.length;
    w.machine.raiseApproval({ sessionId, title: 'Again', detail: 'd' });
    await phone.waitFor((m) => m.type === 'approval.request' && m.title === 'Again');
    const again = w.sent.slice(from).find((s) => s.message.type === 'approval.request')!;
    expect(again.push).toBeUndefined();
    expect(JSON.parse(again.frame).push).toBeNull();
  });
});

describe('timers (injected)', () => {
  it('machine.status every 60 s', async () => {
    const timers = makeManualTimers(Date.now());
    const w = await suite.world({ timers });
    const phone = await w.phone();
    await phone.waitFor(is('machine.status'));
    const before = phone.messages.filter(is('machine.status')).length;
    timers.advance(59_999);
    expect(phone.messages.filter(is('machine.status')).length).toBe(before);
    timers.advance(1);
    await until(
      () => phone.messages.filter(is('machine.status')).length === before + 1,
      'the 60 s status',
    );
    timers.advance(60_000);
    await until(
      () => phone.messages.filter(is('machine.status')).length === before + 2,
      'the next status',
    );
  });

  it('activity-only updates coalesced at 800 ms, state changes never delayed; consecutive repeats collapse to read ×5', async () => {
    const timers = makeManualTimers(Date.now());
    const w = await suite.world({ timers });
    writeFileSync(path.join(w.root, 'f.txt'), 'x');
    const phone = await w.phone();
    const r = await dispatch(phone, {
      prompt: 'read: f.txt\nread: f.txt\nread: f.txt\nread: f.txt\nread: f.txt\nsay: done',
    });
    await finalOf(phone, r.sessionId!);
    // Ten activity changes, no clock movement: only the two state changes went out.
    const updates = phone.messages.filter(is('session.update')).map((u) => u.session);
    expect(updates.map((s) => s.state)).toEqual(['running', 'done']);
    expect(updates[1]).toMatchObject({ steps: [{ tool: 'read', count: 5 }] });
    expect(updates[1]!.activity).toBeUndefined();
    expect(updates[1]!.stepCount).toBeUndefined();
    expect(timers.pending()).toBeGreaterThan(0); // the status timer only
  });

  it('an activity-only update goes out when the 800 ms window ends; steps cleared when a new turn starts, not when it ends', async () => {
    const timers = makeManualTimers(Date.now());
    const w = await suite.world({ timers });
    writeFileSync(path.join(w.root, 'f.txt'), 'x');
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'read: f.txt\nsleep: 5000\nread: f.txt\nsay: ok' });
    const sid = r.sessionId!;
    await until(() => w.machine.transcript(sid).length === 2, 'the first read');
    const count = () => phone.messages.filter(is('session.update')).length;
    await until(() => count() === 1, 'the running update');
    timers.advance(799);
    timers.advance(1);
    const activityOnly = await phone.waitFor(
      (m) =>
        m.type === 'session.update' &&
        m.session.state === 'running' &&
        m.session.steps !== undefined,
    );
    expect(activityOnly).toMatchObject({
      session: { state: 'running', steps: [{ tool: 'read' }] },
    });
    timers.advance(4200);
    const final = await finalOf(phone, sid);
    expect(final.summary).toContain('ok');
    const done = phone.messages.filter(is('session.update')).at(-1)!.session;
    expect(done).toMatchObject({ state: 'done', steps: [{ tool: 'read', count: 2 }] });
    const from = phone.messages.length;
    phone.send({
      type: 'session.message',
      requestId: rid(),
      sessionId: sid,
      text: 'say: next turn',
    });
    const next = await phone.waitFor(
      (m) => m.type === 'session.update' && m.session.state === 'running',
      5000,
      from,
    );
    expect(next.type === 'session.update' && next.session.steps).toBeUndefined();
  });

  it("questions are never auto-answered: an unanswered one closes as expired; a disposed session's as cancelled", async () => {
    const timers = makeManualTimers(Date.now());
    const w = await suite.world({ timers, questionTimeoutMs: 60_000 });
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'ask: Go? | Yes | No' });
    const q = await phone.waitFor(is('question.request'));
    timers.advance(60_000);
    expect(await phone.waitFor(is('question.closed'))).toMatchObject({
      questionId: q.questionId,
      resolution: 'expired',
    });
    expect((await finalOf(phone, r.sessionId!)).summary).toBe('Asked "Go?": no answer (expired)');
    expect(phone.messages.filter(is('session.update')).at(-1)!.session.steps).toEqual([
      { tool: 'ask (expired)' },
    ]);
    const r2 = await dispatch(phone, { prompt: 'ask: Again? | Yes | No' });
    const q2 = await phone.waitFor(
      (m) => m.type === 'question.request' && m.questionId !== q.questionId,
    );
    w.machine.disposeSession(r2.sessionId!);
    expect(
      await phone.waitFor((m) => m.type === 'question.closed' && m.questionId !== q.questionId),
    ).toMatchObject({
      questionId: (q2 as { questionId: string }).questionId,
      resolution: 'cancelled',
    });
  });

  it('approvals are never auto-allowed: an unanswered one expires (resolution expired) and the tool does not run', async () => {
    const timers = makeManualTimers(Date.now());
    const w = await suite.world({ timers, approvalTimeoutMs: 60_000 });
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'run: touch expired.txt' });
    const a = await phone.waitFor(is('approval.request'));
    timers.advance(60_000);
    expect(await phone.waitFor(is('approval.closed'))).toMatchObject({
      approvalId: a.approvalId,
      resolution: 'expired',
    });
    expect((await finalOf(phone, r.sessionId!)).summary).toBe(
      'Approval expired: `touch expired.txt` was not run.',
    );
    // U5: the steps say so too.
    const last = phone.messages.filter(is('session.update')).at(-1)!.session;
    expect(last.steps).toEqual([{ tool: 'run (expired)' }]);
    expect(existsSync(path.join(w.root, 'expired.txt'))).toBe(false);
  });
});
