import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { openSqlite } from '../../device/lane/sqlite.ts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seal, type MachineMessage } from '../../protocol/index.ts';
import { INTERRUPTED_NOTE } from '../sessions/sessions.ts';
import { STORE_FILE } from '../sessions/store.ts';
import { startMachineProcess, type MachineProcess } from '../test-support/machine-process.ts';
import { startRelayProcess, type RelayProcess } from '../test-support/relay-process.ts';
import { is, rid } from '../test-support/relay-suite.ts';
import type { PhoneSend, TestPhone } from '../test-support/test-phone.ts';
import { makeTestPhone } from '../test-support/test-phone.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';
import { until } from '../../testkit/until.ts';

// H3 and U5 across real restarts of `npm run machine`: a relay that recorded sealed phone
// actions re-sends the same bytes after the machine restarted on the same state dir; and a
// machine killed outright (SIGKILL) mid-turn comes back with its store intact.

let relay: RelayProcess;
let tmp: { dir: string; cleanup(): void };
beforeAll(async () => {
  tmp = makeTmpDir();
  relay = await startRelayProcess({ dataDir: path.join(tmp.dir, 'relay') });
});
afterAll(async () => {
  await relay.stop();
  tmp.cleanup();
});
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function world(name: string) {
  const root = path.join(tmp.dir, name, 'root');
  const stateDir = path.join(tmp.dir, name, 'state');
  mkdirSync(root, { recursive: true });
  const args = [
    '--relay',
    relay.url,
    '--root',
    root,
    '--state-dir',
    stateDir,
    '--allow-full-access',
  ];
  return {
    root,
    stateDir,
    async start(): Promise<MachineProcess> {
      const m = startMachineProcess(args);
      cleanups.push(() => m.stop('SIGKILL'));
      await until(() => m.io.stderr.includes('relay-connected'), 'the machine to connect', 20_000);
      return m;
    },
    async phone(): Promise<TestPhone> {
      const code = readFileSync(path.join(stateDir, 'pairing-code.txt'), 'utf8').trim();
      const p = await makeTestPhone({ relayUrl: relay.url, pairingCode: code });
      cleanups.push(() => p.close());
      return p;
    },
  };
}

/** Seals and sends like a phone, and keeps the exact payload bytes a relay would record. */
function recorder(phone: TestPhone) {
  const recorded: Array<{ type: string; requestId: string; payload: string }> = [];
  return {
    recorded,
    send(m: PhoneSend & { requestId: string }) {
      const payload = seal({ v: 1, ts: Date.now(), ...m }, phone.key);
      recorded.push({ type: m.type, requestId: m.requestId, payload });
      phone.sendPayload(payload);
    },
  };
}

const wait = <T extends MachineMessage>(
  phone: TestPhone,
  pred: (m: MachineMessage) => m is T,
  from = 0,
) => phone.waitFor(pred, 10_000, from);

describe('H3: a recorded phone action replayed after a restart is refused', () => {
  it('H3: every phone action type, re-sent byte for byte after the machine restarted on the same state dir, is refused and nothing runs again', async () => {
    const w = world('replay');
    const first = await w.start();
    const phone = await w.phone();
    const rec = recorder(phone);

    const dispatchId = rid();
    rec.send({
      type: 'dispatch.request',
      requestId: dispatchId,
      prompt: 'ask: Go? | Yes | No\nrun: echo ran >> count.txt',
      worktree: false,
      access: 'full',
    });
    const result = await wait(
      phone,
      (m): m is Extract<MachineMessage, { type: 'dispatch.result' }> =>
        m.type === 'dispatch.result' && m.requestId === dispatchId,
    );
    expect(result.ok).toBe(true);
    const sessionId = result.sessionId!;
    const q = await wait(phone, is('question.request'));
    rec.send({
      type: 'question.respond',
      requestId: rid(),
      questionId: q.questionId,
      answers: [{ itemId: 'q1', optionIds: ['1'] }],
    });
    const a = await wait(phone, is('approval.request'));
    rec.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: a.approvalId,
      decision: 'allow',
    });
    await wait(
      phone,
      (m): m is MachineMessage => m.type === 'turn.final' && m.sessionId === sessionId,
    );
    let from = phone.messages.length;
    rec.send({ type: 'session.message', requestId: rid(), sessionId, text: 'say: steered' });
    await wait(
      phone,
      (m): m is MachineMessage => m.type === 'turn.final' && m.summary === 'steered',
      from,
    );
    rec.send({ type: 'transcript.get', requestId: rid(), sessionId });
    await wait(phone, is('transcript'));
    // E2, E4: the extension actions are recorded and refused on replay the same way.
    rec.send({ type: 'rules.get', requestId: rid() });
    await wait(phone, is('rules'));
    from = phone.messages.length;
    rec.send({ type: 'rule.revoke', requestId: rid(), ruleId: rid() });
    await wait(phone, is('rules'), from);
    rec.send({ type: 'session.interrupt', requestId: rid(), sessionId });
    await wait(phone, (m): m is MachineMessage => m.type === 'error' && m.reason === 'not-running');
    expect(rec.recorded.map((r) => r.type).sort()).toEqual([
      'approval.respond',
      'dispatch.request',
      'question.respond',
      'rule.revoke',
      'rules.get',
      'session.interrupt',
      'session.message',
      'transcript.get',
    ]);
    expect(readFileSync(path.join(w.root, 'count.txt'), 'utf8')).toBe('ran\n');

    expect(await first.stop('SIGTERM')).toBe(0);
    // Counted before the start: the phone stays in the room, so the new process's snapshot can
    // arrive before start() has seen the ready line.
    from = phone.messages.length;
    const second = await w.start();
    await wait(phone, is('session.snapshot'), from);
    for (const r of rec.recorded) phone.sendPayload(r.payload);
    await until(
      () => (second.io.stderr.match(/replayed-request/g) ?? []).length === rec.recorded.length,
      'every replay to be refused',
      10_000,
    );
    // The machine logs a refusal before its answer has crossed the relay: wait for the answers.
    const refusalCount = () =>
      phone.messages
        .slice(from)
        .filter(
          (m) =>
            (m.type === 'error' && m.message.includes('duplicate request')) ||
            (m.type === 'dispatch.result' && m.requestId === dispatchId),
        ).length;
    await until(
      () => refusalCount() === rec.recorded.length,
      'every refusal to reach the phone',
      10_000,
    );

    const answers = phone.messages.slice(from);
    expect(answers.filter(is('dispatch.result'))).toEqual([
      expect.objectContaining({ requestId: dispatchId, ok: false }),
    ]);
    expect(answers.filter(is('dispatch.result'))[0]!.error).toContain('duplicate request');
    const refusals = answers
      .filter(is('error'))
      .filter((e) => e.message.includes('duplicate request'))
      .map((e) => e.context)
      .sort();
    expect(refusals).toEqual([
      'approval.respond',
      'question.respond',
      'rule.revoke',
      'rules.get',
      'session.interrupt',
      'session.message',
      'transcript.get',
    ]);
    // Nothing ran again: no second session, no second command, no new turn, no transcript page.
    expect(answers.filter(is('transcript'))).toEqual([]);
    expect(answers.filter(is('rules'))).toEqual([]);
    expect(answers.filter(is('turn.final'))).toEqual([]);
    const snap = await (async () => {
      const at = phone.messages.length;
      phone.send({ type: 'sessions.get' });
      return wait(phone, is('session.snapshot'), at);
    })();
    expect(snap.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    expect(readFileSync(path.join(w.root, 'count.txt'), 'utf8')).toBe('ran\n');
  }, 120_000);
});

describe('U5: a machine killed outright keeps its history', () => {
  it('U5: after SIGKILL mid-turn the store opens intact; the session is listed as error with the interruption in its transcript', async () => {
    const w = world('crash');
    const first = await w.start();
    const phone = await w.phone();
    const requestId = rid();
    phone.send({
      type: 'dispatch.request',
      requestId,
      prompt: 'say: started\nsleep: 60000\nsay: never said',
      worktree: false,
    });
    const r = await wait(
      phone,
      (m): m is Extract<MachineMessage, { type: 'dispatch.result' }> =>
        m.type === 'dispatch.result' && m.requestId === requestId,
    );
    await wait(
      phone,
      (m): m is MachineMessage =>
        m.type === 'session.update' &&
        m.session.state === 'running' &&
        m.session.sessionId === r.sessionId,
    );
    await first.stop('SIGKILL');
    const db = openSqlite(path.join(w.stateDir, STORE_FILE), { readOnly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();

    const from = phone.messages.length;
    await w.start();
    const snap = await wait(phone, is('session.snapshot'), from);
    expect(snap.sessions).toEqual([
      expect.objectContaining({ sessionId: r.sessionId, state: 'error', live: false }),
    ]);
    const at = phone.messages.length;
    phone.send({ type: 'transcript.get', requestId: rid(), sessionId: r.sessionId! });
    const page = await wait(phone, is('transcript'), at);
    expect(page.entries.map((e) => e.text)).toEqual([
      'say: started\nsleep: 60000\nsay: never said',
      'started',
      INTERRUPTED_NOTE,
    ]);
  }, 120_000);
});
