import { afterEach, describe, expect, it } from 'vitest';
import { makeManualTimers } from '../../../testkit/manual-clock.ts';
import { isGone } from '../../../testkit/process-group.ts';
import { makeTmpDir, type TmpDir } from '../../../testkit/tmp.ts';
import { until } from '../../../testkit/until.ts';
import { writeFakeAcpAgent, type FakeAcpAgent } from '../../test-support/fake-acp-agent.ts';
import type { AgentContext } from '../agent.ts';
import { IDLE_LIMIT_MS, openAcpSession, type AcpSession } from './session.ts';

// The ACP adapter's resume paths (E10, E11.6) with a tiny real ACP agent the test writes
// (machine/test-support/fake-acp-agent.ts): it offers loadSession or not and loads only sessions
// it made. Time (the idle limit) runs on the manual clock.

let dir: TmpDir;
const sessions: AcpSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  dir.cleanup();
});

function setup(loadSession: boolean, resume?: string) {
  dir = makeTmpDir('acp-resume-');
  const agent = writeFakeAcpAgent(dir.dir, { name: 'fake', loadSession });
  const clock = makeManualTimers();
  const s = openAcpSession(
    { spec: agent.spec, env: { PATH: process.env.PATH ?? '' } },
    {
      cwd: dir.dir,
      access: 'standard',
      timers: clock,
      ...(resume !== undefined ? { resume } : {}),
    },
  );
  sessions.push(s);
  return { agent, clock, s };
}

type Turn = { ctx: AgentContext; said: string[]; stored: string[] };
function turn(): Turn {
  const t: Turn = {
    said: [],
    stored: [],
    ctx: {
      cwd: '',
      signal: new AbortController().signal,
      host: () => {
        throw new Error('an ACP agent runs its own tools');
      },
      approve: () => Promise.resolve({ allowed: false, why: 'denied' }),
      ask: () => Promise.resolve({ ok: false, why: 'denied' }),
      toolStarted: () => {},
      toolFinished: () => {},
      assistant: (text) => t.said.push(text),
      sleep: () => Promise.resolve(),
      usage: () => {},
      model: () => {},
      nativeSession: (id) => t.stored.push(id),
    },
  };
  return t;
}

const of = (agent: FakeAcpAgent, m: string) => agent.events().filter((e) => e.m === m);

describe('ACP resume paths (a real ACP agent process the test writes)', () => {
  it('E10: an idle agent that offers loadSession is ended after IDLE_LIMIT_MS without a turn (manual clock), and the next reply resumes its session with session/load', async () => {
    const { agent, clock, s } = setup(true);
    const first = turn();
    expect(await s.runTurn('remember 4242', first.ctx)).toMatchObject({
      ok: true,
      summary: 'heard: remember 4242',
    });
    const [made] = of(agent, 'new');
    expect(first.stored).toEqual([made!.sessionId]);
    const pid = s.pid!;
    clock.advance(IDLE_LIMIT_MS - 1);
    expect(isGone(pid)).toBe(false);
    clock.advance(1);
    await until(() => isGone(pid), 'the idle agent to end');
    expect(s.pid).toBeNull();

    const second = turn();
    expect(await s.runTurn('which number?', second.ctx)).toMatchObject({ ok: true });
    expect(of(agent, 'load')).toEqual([
      { m: 'load', sessionId: made!.sessionId, ok: true, pid: s.pid },
    ]);
    expect(of(agent, 'prompt').at(-1)).toMatchObject({
      sessionId: made!.sessionId,
      text: 'which number?',
    });
    expect(of(agent, 'new')).toHaveLength(1);
    // Resumed quietly: nothing is said about a new conversation.
    expect(second.said).toEqual(['heard: which number?']);
  });

  it('E10: a turn before the idle limit keeps the agent: the limit counts from the end of the last turn', async () => {
    const { agent, clock, s } = setup(true);
    await s.runTurn('one', turn().ctx);
    const pid = s.pid!;
    clock.advance(IDLE_LIMIT_MS - 1);
    await s.runTurn('two', turn().ctx);
    clock.advance(IDLE_LIMIT_MS - 1);
    expect(s.pid).toBe(pid);
    expect(isGone(pid)).toBe(false);
    expect(of(agent, 'load')).toEqual([]);
  });

  it('E10/E11.6: an agent without loadSession is kept idle past the limit (ending it would lose the conversation), and its session id is never stored, so a restart ends the session machine-restarted instead of starting it afresh', async () => {
    const { clock, s } = setup(false);
    const t = turn();
    expect(await s.runTurn('hello', t.ctx)).toMatchObject({ ok: true, summary: 'heard: hello' });
    const pid = s.pid!;
    clock.advance(IDLE_LIMIT_MS * 3);
    expect(clock.pending()).toBe(0);
    expect(isGone(pid)).toBe(false);
    expect(t.stored).toEqual([]);
  });

  it('E10: a stored session the agent cannot load: the transcript says plainly it could not be resumed, the prompt runs in a new session, and that new one is the one loaded after the idle limit', async () => {
    const { agent, clock, s } = setup(true, 'gone-session');
    const first = turn();
    expect(await s.runTurn('hello again', first.ctx)).toMatchObject({
      ok: true,
      summary: 'heard: hello again',
    });
    expect(of(agent, 'load')).toMatchObject([{ sessionId: 'gone-session', ok: false }]);
    expect(first.said[0]).toMatch(
      /^Could not resume the earlier fake conversation \(.*no such session: gone-session.*\); started a new one — the agent does not remember it\.$/,
    );
    const [made] = of(agent, 'new');
    expect(first.stored).toEqual([made!.sessionId]);
    expect(of(agent, 'prompt')).toMatchObject([{ sessionId: made!.sessionId }]);

    const pid = s.pid!;
    clock.advance(IDLE_LIMIT_MS);
    await until(() => isGone(pid), 'the idle agent to end');
    const second = turn();
    await s.runTurn('and now?', second.ctx);
    expect(of(agent, 'load').at(-1)).toMatchObject({ sessionId: made!.sessionId, ok: true });
    expect(second.said).toEqual(['heard: and now?']);
  });

  it('E10: a stored session and an agent without loadSession: the transcript says plainly the earlier conversation could not be resumed, and the prompt runs in a new session', async () => {
    const { agent, s } = setup(false, 'earlier-session');
    const t = turn();
    expect(await s.runTurn('hello', t.ctx)).toMatchObject({ ok: true, summary: 'heard: hello' });
    expect(t.said[0]).toBe(
      'fake cannot load an earlier session (it does not offer loadSession); started a new one — the agent does not remember it.',
    );
    expect(of(agent, 'load')).toEqual([]);
    expect(of(agent, 'prompt')).toMatchObject([{ sessionId: of(agent, 'new')[0]!.sessionId }]);
  });
});
