import { afterEach, describe, expect, it } from 'vitest';
import { makeManualTimers } from '../../../testkit/manual-clock.ts';
import { isGone } from '../../../testkit/process-group.ts';
import { makeTmpDir, type TmpDir } from '../../../testkit/tmp.ts';
import { until } from '../../../testkit/until.ts';
import { writeFakeAcpAgent } from '../../test-support/fake-acp-agent.ts';
import { dispatch, finalOf, is, relaySuite, rid } from '../../test-support/relay-suite.ts';
import type { TestPhone } from '../../test-support/test-phone.ts';
import { declaredAcpProvider } from './provider.ts';
import { IDLE_LIMIT_MS } from './session.ts';

// E11.6 for ACP agents, through a real relay and the test phone, with a tiny real ACP agent the
// test writes (machine/test-support/fake-acp-agent.ts): after a restart a session resumes only
// when its agent can load it; otherwise it has ended, and says so — never a silent fresh start.

const suite = relaySuite();
let dir: TmpDir;
afterEach(() => dir.cleanup());

async function snapshotAfterRestart(phone: TestPhone, restart: () => Promise<unknown>) {
  const mark = phone.messages.length;
  await restart();
  return phone.waitFor(is('session.snapshot'), 8000, mark);
}

function reply(phone: TestPhone, sessionId: string, text: string) {
  phone.send({ type: 'session.message', requestId: rid(), sessionId, text });
}

describe('E11.6: ACP sessions across a machine restart', () => {
  it('E11.6: a session of an ACP agent without loadSession has ended machine-restarted after a restart; a reply is refused with no-remote-followup saying why and never runs as a fresh conversation', async () => {
    dir = makeTmpDir('acp-restart-');
    const agent = writeFakeAcpAgent(dir.dir, { name: 'noload', loadSession: false });
    const agents = () => [
      declaredAcpProvider(agent.spec, { env: { PATH: process.env.PATH ?? '' } }),
    ];
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'hello' });
    expect(await finalOf(phone, r.sessionId!)).toMatchObject({ ok: true, summary: 'heard: hello' });
    const before = w.machine.transcript(r.sessionId!);

    const snap = await snapshotAfterRestart(phone, () => w.restart({ agents: agents() }));
    expect(snap.sessions.find((s) => s.sessionId === r.sessionId)).toMatchObject({
      agent: 'noload',
      live: false,
      ended: { reason: 'machine-restarted' },
    });
    const from = phone.messages.length;
    reply(phone, r.sessionId!, 'and again');
    expect(
      await phone.waitFor((m) => m.type === 'error' && m.sessionId === r.sessionId, 5000, from),
    ).toMatchObject({
      reason: 'no-remote-followup',
      message: expect.stringContaining('ended when the machine restarted'),
    });
    expect(w.machine.transcript(r.sessionId!)).toEqual(before);
    expect(agent.events().filter((e) => e.m === 'prompt')).toHaveLength(1);
  }, 30_000);

  it('E10/E11.6: a session of an ACP agent that offers loadSession is live after a restart, and a reply loads its session (nothing said about a new conversation)', async () => {
    dir = makeTmpDir('acp-restart-');
    const agent = writeFakeAcpAgent(dir.dir, { name: 'withload', loadSession: true });
    const agents = () => [
      declaredAcpProvider(agent.spec, { env: { PATH: process.env.PATH ?? '' } }),
    ];
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'hello' });
    await finalOf(phone, r.sessionId!);
    const made = agent.events().find((e) => e.m === 'new')!.sessionId;

    const snap = await snapshotAfterRestart(phone, () => w.restart({ agents: agents() }));
    const listed = snap.sessions.find((s) => s.sessionId === r.sessionId);
    expect(listed).toMatchObject({ agent: 'withload', live: true });
    expect(listed!.ended).toBeUndefined();
    const from = phone.messages.length;
    reply(phone, r.sessionId!, 'and again');
    const final = await phone.waitFor(
      (m) => m.type === 'turn.final' && m.sessionId === r.sessionId,
      8000,
      from,
    );
    expect(final).toMatchObject({
      ok: true,
      summary: 'heard: and again',
    });
    expect(agent.events().filter((e) => e.m === 'load')).toMatchObject([
      { sessionId: made, ok: true },
    ]);
    expect(w.machine.transcript(r.sessionId!).map((e) => e.text)).toEqual([
      'hello',
      'heard: hello',
      'and again',
      'heard: and again',
    ]);
  }, 30_000);

  it("E10/T3: the idle limit runs on the machine's own timers: advancing the machine's manual clock by IDLE_LIMIT_MS ends the idle agent", async () => {
    dir = makeTmpDir('acp-restart-');
    const agent = writeFakeAcpAgent(dir.dir, { name: 'withload', loadSession: true });
    const timers = makeManualTimers(Date.now());
    const w = await suite.world({
      timers,
      agents: [declaredAcpProvider(agent.spec, { env: { PATH: process.env.PATH ?? '' } })],
    });
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'hello' });
    await finalOf(phone, r.sessionId!);
    const pid = agent.events()[0]!.pid;
    expect(isGone(pid)).toBe(false);
    timers.advance(IDLE_LIMIT_MS);
    await until(() => isGone(pid), 'the idle agent to end');
  }, 30_000);
});
