import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MachineMessage } from '../../protocol/index.ts';
import { dispatch, finalOf, is, relaySuite, rid } from '../test-support/relay-suite.ts';
import { liveInGroup } from '../../testkit/process-group.ts';
import type { TestPhone } from '../test-support/test-phone.ts';
import { until } from '../../testkit/until.ts';

// E4 on the machine side: session.interrupt against a real relay process, the local tool host
// running real shells in their own process groups.

const suite = relaySuite();

function interrupt(phone: TestPhone, sessionId: string, requestId = rid()) {
  phone.send({ type: 'session.interrupt', requestId, sessionId });
  return requestId;
}

const isInterrupted = (sessionId: string) => (m: MachineMessage) =>
  m.type === 'turn.final' && m.sessionId === sessionId && m.reason === 'interrupted';

describe('E4: stop a running session', () => {
  it('E4: session.interrupt ends a long run: its whole process group is gone, turn.final says interrupted and the session waits (idle)', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const from = phone.messages.length;
    // A child in the background and one in the foreground: both are in the command's group.
    const r = await dispatch(phone, {
      prompt: 'run: sleep 30 & echo $$ > pid.txt; sleep 30\nsay: never said',
    });
    const a = await phone.waitFor(is('approval.request'), 5000, from);
    phone.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: a.approvalId,
      decision: 'allow',
    });
    const pidFile = path.join(w.root, 'pid.txt');
    await until(
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'),
      'the command to start',
    );
    const pgid = Number(readFileSync(pidFile, 'utf8'));
    // The shell, its background sleep and (once forked) the foreground one: how many are up at
    // this instant depends on scheduling and on whether the shell execs its last command, so wait
    // for the two sleeps rather than count once.
    await until(() => liveInGroup(pgid).length >= 2, 'both sleeps to run');

    // How fast is measured by `npm run bench:agents` (stop → not running, the mock's row).
    interrupt(phone, r.sessionId!);
    const final = await phone.waitFor(isInterrupted(r.sessionId!), 15_000);
    expect(final).toMatchObject({ ok: false, reason: 'interrupted' });
    expect(final.type === 'turn.final' && final.summary).toContain(
      'Turn stopped: stopped from the phone.',
    );
    expect(final.type === 'turn.final' && final.summary).not.toContain('never said');
    // Killed processes are gone once reaped (a moment after their pipes closed).
    await until(() => liveInGroup(pgid).length === 0, 'the whole group to end', 15_000);
    const update = await phone.waitFor(
      (m) =>
        m.type === 'session.update' &&
        m.session.sessionId === r.sessionId &&
        m.session.state === 'idle',
      5000,
      phone.messages.indexOf(final) - 2,
    );
    expect(update).toBeTruthy();
    // A stop the human asked for is not reported as an error of the session.
    expect(phone.messages.filter((m) => m.type === 'error' && m.sessionId === r.sessionId)).toEqual(
      [],
    );
  });

  it('E4: session.interrupt ends a sleep: step at once', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'sleep: 60000\nsay: never said' });
    await phone.waitFor(
      (m) =>
        m.type === 'session.update' &&
        m.session.sessionId === r.sessionId &&
        m.session.state === 'running',
    );
    // The step sleeps 60 s: a stop well inside that is the interrupt's doing.
    interrupt(phone, r.sessionId!);
    await phone.waitFor(isInterrupted(r.sessionId!), 15_000);
  });

  it("E4: session.interrupt closes the session's open approval (superseded) and question (cancelled); the tool never runs", async () => {
    const w = await suite.world();
    const phone = await w.phone();
    let from = phone.messages.length;
    const q = await dispatch(phone, { prompt: 'ask: Go? | Yes | No' });
    const question = await phone.waitFor(is('question.request'), 5000, from);
    interrupt(phone, q.sessionId!);
    expect(
      await phone.waitFor(
        (m) => m.type === 'question.closed' && m.questionId === question.questionId,
      ),
    ).toMatchObject({ resolution: 'cancelled' });
    await phone.waitFor(isInterrupted(q.sessionId!));

    from = phone.messages.length;
    const a = await dispatch(phone, { prompt: 'run: touch ran.txt' });
    const approval = await phone.waitFor(is('approval.request'), 5000, from);
    interrupt(phone, a.sessionId!);
    expect(
      await phone.waitFor(
        (m) => m.type === 'approval.closed' && m.approvalId === approval.approvalId,
      ),
    ).toMatchObject({ resolution: 'superseded' });
    await phone.waitFor(isInterrupted(a.sessionId!));
    expect(w.machine.pendingApprovals()).toEqual([]);
    expect(existsSync(path.join(w.root, 'ran.txt'))).toBe(false);
  });

  it('E4: not-running for a session whose turn has ended and for one the machine does not hold; a duplicate interrupt is answered, not run again', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'say: done' });
    await finalOf(phone, r.sessionId!);
    let from = phone.messages.length;
    interrupt(phone, r.sessionId!);
    expect(await phone.waitFor(is('error'), 5000, from)).toMatchObject({
      reason: 'not-running',
      sessionId: r.sessionId,
      context: 'session.interrupt',
    });
    from = phone.messages.length;
    const unknown = rid();
    interrupt(phone, unknown);
    expect(await phone.waitFor(is('error'), 5000, from)).toMatchObject({
      reason: 'not-running',
      sessionId: unknown,
    });

    const long = await dispatch(phone, { prompt: 'sleep: 60000' });
    const requestId = interrupt(phone, long.sessionId!);
    await phone.waitFor(isInterrupted(long.sessionId!));
    from = phone.messages.length;
    interrupt(phone, long.sessionId!, requestId);
    await phone.waitFor(
      (m) => m.type === 'session.update' && m.session.sessionId === long.sessionId,
      5000,
      from,
    );
    expect(
      phone.messages.slice(from).filter((m) => m.type === 'turn.final' || m.type === 'error'),
    ).toEqual([]);
    expect(w.log.lines.some((l) => l.code === 'duplicate-request')).toBe(true);
  });
});
