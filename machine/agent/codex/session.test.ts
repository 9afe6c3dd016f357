import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeManualTimers } from '../../../testkit/manual-clock.ts';
import { isGone, liveInGroup } from '../../../testkit/process-group.ts';
import { until } from '../../../testkit/until.ts';
import { CODEX_TEST_ARGS, makeCodexHome, type CodexHome } from '../../test-support/codex-home.ts';
import {
  startFakeResponses,
  type FakeReply,
  type FakeRequest,
  type FakeResponses,
} from '../../test-support/fake-responses.ts';
import type {
  CodexAnswers,
  CodexApproval,
  CodexAsk,
  CodexContext,
  CodexQuestion,
} from './context.ts';
import { INTERRUPT_BACKSTOP_MS, makeCodexSession, type CodexSession } from './session.ts';
import { STEER_LIMIT_MS } from './turn.ts';

// The real `codex app-server` (0.171.0) against a scripted Responses server: one fake server for
// the file, an isolated CODEX_HOME per test. E10: Codex's approvals, questions and file changes
// become the machine's cards; E4: Stop ends the turn and its command.

let fake: FakeResponses;
let home: CodexHome;
const sessions: CodexSession[] = [];

beforeAll(async () => {
  fake = await startFakeResponses();
});
afterAll(() => fake.close());
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  home.cleanup();
});

/** Each request gets the next reply; after the last, a closing text. */
function script(...replies: FakeReply[]): FakeRequest[] {
  const seen: FakeRequest[] = [];
  fake.respond = (req) => {
    seen.push(req);
    return replies[seen.length - 1] ?? { kind: 'text', text: 'All done.' };
  };
  return seen;
}

function session(resume?: string, more: Partial<Parameters<typeof makeCodexSession>[0]> = {}) {
  const s = makeCodexSession({
    cwd: home.work,
    access: 'standard',
    ...more,
    extraArgs: CODEX_TEST_ARGS,
    env: home.env,
    ...(resume !== undefined ? { resume } : {}),
  });
  sessions.push(s);
  return s;
}

type Recorded = {
  ctx: CodexContext;
  asks: CodexAsk[];
  questions: CodexQuestion[];
  events: string[];
  usage: { inputTokens: number; outputTokens: number }[];
  stop(why: string): void;
};

function recorder(
  decide: (ask: CodexAsk, cleared: AbortSignal) => CodexApproval | Promise<CodexApproval> = () => ({
    allowed: false,
    why: 'denied',
  }),
  answer: (qs: CodexQuestion[]) => CodexAnswers = () => ({ ok: false, why: 'denied' }),
): Recorded {
  const abort = new AbortController();
  const r: Recorded = {
    asks: [],
    questions: [],
    events: [],
    usage: [],
    stop: (why) => abort.abort(why),
    ctx: {
      signal: abort.signal,
      approve: async (ask, cleared) => {
        r.asks.push(ask);
        return decide(ask, cleared);
      },
      ask: async (qs) => {
        r.questions.push(...qs);
        return answer(qs);
      },
      toolStarted: (tool) => r.events.push(`started ${tool}`),
      toolFinished: (refused) => r.events.push(`finished${refused ? ' ' + refused : ''}`),
      assistant: (text) => r.events.push(`says ${text}`),
      usage: (u) => r.usage.push(u),
      model: (name) => r.events.push(`model ${name}`),
      nativeSession: (id) => r.events.push(`thread ${id}`),
    },
  };
  return r;
}

const escalated = (cmd: string) =>
  ({
    kind: 'call',
    name: 'exec_command',
    args: { cmd, sandbox_permissions: 'require_escalated', justification: 'the test asks' },
  }) as const;

/** Everything Codex sent the model in one request, as text. */
const sent = (req: FakeRequest | undefined) => JSON.stringify(req?.body.input ?? []);

describe('Codex app-server adapter (real codex 0.171.0, fake model)', () => {
  it('E10: a text reply is the turn summary; model, thread id and usage are reported', async () => {
    home = makeCodexHome(fake);
    script({ kind: 'text', text: 'Hello from the fake model.', usage: { input: 12, output: 7 } });
    const s = session();
    const r = recorder();
    const outcome = await s.runTurn('say hello', r.ctx);
    expect(outcome).toEqual({
      ok: true,
      summary: 'Hello from the fake model.',
      placeholder: false,
      close: false,
    });
    expect(r.events).toContain('model gpt-5.5');
    expect(r.events).toContain(`thread ${s.threadId}`);
    expect(s.threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.model).toBe('gpt-5.5');
    expect(r.usage.at(-1)).toEqual({ inputTokens: 12, outputTokens: 7 });
    expect(sent(fake.requests.at(-1))).toContain('say hello');
  });

  it('E10: an allowed command runs: the card shows it as typed, with folder and reason', async () => {
    home = makeCodexHome(fake);
    script(escalated("touch 'made by codex.txt'"));
    const r = recorder(() => ({ allowed: true }));
    const outcome = await session().runTurn('make a file', r.ctx);
    expect(r.asks).toHaveLength(1);
    const ask = r.asks[0]!;
    expect(ask.tool).toBe('exec_command');
    expect(ask.tool === 'exec_command' && ask.command).toBe("touch 'made by codex.txt'");
    expect(ask.detail).toContain(`in ${home.work}`);
    expect(ask.detail).toContain('Why: the test asks');
    expect(existsSync(path.join(home.work, 'made by codex.txt'))).toBe(true);
    expect(r.events).toContain('started exec_command');
    expect(outcome).toMatchObject({ ok: true, summary: 'All done.' });
  });

  it('E10: full access never turns approvals off — a command Codex would run unasked in its danger-full-access sandbox still comes to the phone, and a deny keeps it from running', async () => {
    home = makeCodexHome(fake);
    script({ kind: 'call', name: 'exec_command', args: { cmd: 'touch full-access.txt' } });
    const r = recorder(() => ({ allowed: false, why: 'denied' }));
    const outcome = await session(undefined, { access: 'full' }).runTurn('make a file', r.ctx);
    expect(r.asks).toHaveLength(1);
    expect(r.asks[0]!.tool === 'exec_command' && r.asks[0]!.command).toBe('touch full-access.txt');
    expect(existsSync(path.join(home.work, 'full-access.txt'))).toBe(false);
    expect(outcome).toMatchObject({ ok: true });
  });

  it('E10: a declined command does not run, and the turn goes on (decline, never cancel)', async () => {
    home = makeCodexHome(fake);
    const seen = script(escalated('touch declined.txt'));
    const r = recorder(() => ({ allowed: false, why: 'denied' }));
    const outcome = await session().runTurn('make a file', r.ctx);
    expect(r.asks).toHaveLength(1);
    expect(existsSync(path.join(home.work, 'declined.txt'))).toBe(false);
    expect(r.events).toContain('finished denied');
    // The model heard the refusal and answered again: the turn was not cancelled.
    expect(seen).toHaveLength(2);
    expect(sent(seen[1])).toMatch(/rejected by user/);
    expect(outcome).toMatchObject({ ok: true, summary: 'All done.' });
  });

  it("E11: a deny's message reaches the model in the same turn, right after Codex's refusal of that call, and the turn goes on", async () => {
    home = makeCodexHome(fake);
    const seen = script(escalated('rm notes.txt'), { kind: 'text', text: 'I kept the notes.' });
    const r = recorder(() => ({ allowed: false, why: 'denied', message: 'keep the notes' }));
    const outcome = await session().runTurn('tidy up', r.ctx);
    expect(outcome).toMatchObject({ ok: true, summary: 'I kept the notes.' });
    expect(existsSync(path.join(home.work, 'notes.txt'))).toBe(false);
    expect(seen).toHaveLength(2);
    const input = (seen[1]!.body.input ?? []) as Array<{ type?: string; call_id?: string }>;
    const refusal = input.findIndex((i) => i.type === 'function_call_output');
    expect(JSON.stringify(input[refusal])).toMatch(/rejected by user/);
    const words = input.findIndex((i) =>
      JSON.stringify(i).includes(
        '(From the owner, who denied `rm notes.txt` on their phone: keep the notes)',
      ),
    );
    expect(input[refusal]!.call_id).toBe(input[refusal - 1]!.call_id);
    expect(words).toBe(refusal + 1);
    expect(input[words]).toMatchObject({ type: 'message', role: 'user' });
  });

  it('E11: the words of a deny that came once the turn had ended reach the model at the start of the next turn', async () => {
    home = makeCodexHome(fake);
    script(escalated('rm notes.txt'));
    const r: Recorded = recorder(
      (_ask, cleared) =>
        new Promise((resolve) => {
          cleared.addEventListener('abort', () =>
            resolve({ allowed: false, why: 'denied', message: 'keep the notes' }),
          );
          r.stop('stopped from the phone');
        }),
    );
    const s = session();
    expect(await s.runTurn('tidy up', r.ctx)).toMatchObject({ ok: false });
    const seen = script({ kind: 'text', text: 'Understood.' });
    await s.runTurn('go on', recorder().ctx);
    const last = JSON.stringify((seen[0]!.body.input ?? []).slice(-1));
    expect(last).toContain(
      '(From the owner, who denied `rm notes.txt` on their phone: keep the notes)',
    );
    expect(last).toContain('go on');
  });

  const NOTE = '(From the owner, who denied `rm notes.txt` on their phone: keep the notes)';
  const times = (haystack: string, needle: string) => haystack.split(needle).length - 1;

  /** A deny with words, given while Codex is frozen (SIGSTOP): it cannot answer the steer. */
  function frozenDeny(s: CodexSession) {
    return recorder(() => {
      process.kill(-s.pid!, 'SIGSTOP');
      return { allowed: false, why: 'denied', message: 'keep the notes' };
    });
  }

  /** 'tidy up' denied with words while Codex is frozen, STEER_LIMIT_MS passed on the manual clock. */
  async function steerUnanswered() {
    const clock = makeManualTimers();
    const s = session(undefined, { timers: clock });
    const r = frozenDeny(s);
    const steerArmed = clock.whenArmed(STEER_LIMIT_MS);
    const running = s.runTurn('tidy up', r.ctx);
    await steerArmed;
    const pid = s.pid!;
    clock.advance(STEER_LIMIT_MS);
    return { clock, s, r, running, pid };
  }

  it("E11/T3: Codex does not answer the steer within STEER_LIMIT_MS (the manual clock): the owner's words go before the next prompt", async () => {
    home = makeCodexHome(fake);
    script(escalated('rm notes.txt'));
    const { clock, s, r, running, pid } = await steerUnanswered();
    // Still frozen: the turn is stopped, and past the backstop the process goes (E4).
    r.stop('stopped from the phone');
    clock.advance(INTERRUPT_BACKSTOP_MS);
    expect(await running).toMatchObject({ ok: false });
    expect(isGone(pid)).toBe(true);
    const seen = script({ kind: 'text', text: 'Understood.' });
    await s.runTurn('go on', recorder().ctx);
    const input = JSON.stringify(seen[0]!.body.input ?? []);
    expect(times(input, NOTE)).toBe(1);
    expect(input.indexOf(NOTE)).toBeLessThan(input.lastIndexOf('go on'));
  });

  it('E11/T3: a steer Codex takes after STEER_LIMIT_MS is not told again with the next prompt', async () => {
    home = makeCodexHome(fake);
    const first = script(escalated('rm notes.txt'), { kind: 'text', text: 'I kept the notes.' });
    const { s, running, pid } = await steerUnanswered();
    process.kill(-pid, 'SIGCONT'); // Codex reads the steer, then the decline
    expect(await running).toMatchObject({ ok: true, summary: 'I kept the notes.' });
    expect(times(sent(first[1]), NOTE)).toBe(1);
    const seen = script({ kind: 'text', text: 'Understood.' });
    await s.runTurn('go on', recorder().ctx);
    // Once, in the thread's history; not again before the prompt.
    expect(times(sent(seen[0]), NOTE)).toBe(1);
  });

  it('E10: a file change is asked with a unified diff, and applied once allowed', async () => {
    home = makeCodexHome(fake);
    const file = path.join(home.outside, 'notes.txt');
    writeFileSync(file, 'first\nold line\nlast\n');
    script({
      kind: 'custom',
      name: 'apply_patch',
      input: `*** Begin Patch\n*** Update File: ${file}\n@@\n first\n-old line\n+new line\n last\n*** End Patch\n`,
    });
    const r = recorder(() => ({ allowed: true }));
    const outcome = await session().runTurn('edit the notes', r.ctx);
    expect(r.asks).toHaveLength(1);
    const ask = r.asks[0]!;
    expect(ask.tool).toBe('apply_patch');
    expect(ask.title).toBe(`Edit ${file}`);
    expect(ask.detail).toContain(`--- ${file}\n+++ ${file}\n`);
    expect(ask.detail).toContain('-old line\n+new line');
    expect(readFileSync(file, 'utf8')).toBe('first\nnew line\nlast\n');
    expect(outcome).toMatchObject({ ok: true });
  });

  it('E10: request_user_input becomes a question; the chosen label goes back to Codex', async () => {
    home = makeCodexHome(fake);
    const seen = script({
      kind: 'call',
      name: 'request_user_input',
      args: {
        questions: [
          {
            id: 'color',
            header: 'Color',
            question: 'Which color?',
            options: [
              { label: 'Red', description: 'warm' },
              { label: 'Blue', description: 'cool' },
            ],
          },
        ],
      },
    });
    const r = recorder(undefined, () => ({ ok: true, choices: [{ labels: ['Blue'] }] }));
    const outcome = await session().runTurn('ask me', r.ctx);
    expect(r.questions).toEqual([
      {
        prompt: 'Which color?',
        header: 'Color',
        options: ['Red', 'Blue'],
        multiSelect: false,
        allowFreeText: true,
      },
    ]);
    expect(sent(seen[1])).toContain('\\"color\\":{\\"answers\\":[\\"Blue\\"]}');
    expect(outcome).toMatchObject({ ok: true });
  });

  it('E4: Stop ends the turn by the interrupt, not the backstop, and the running command is gone', async () => {
    home = makeCodexHome(fake);
    const pidFile = path.join(home.work, 'pid');
    script(
      escalated(
        `node -e "require('fs').writeFileSync('pid', String(process.pid)); setTimeout(() => {}, 60000)"`,
      ),
    );
    const r = recorder(() => ({ allowed: true }));
    // The manual clock never reaches INTERRUPT_BACKSTOP_MS: only the interrupt can end this turn.
    const s = session(undefined, { timers: makeManualTimers() });
    const running = s.runTurn('run something long', r.ctx);
    await until(
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '',
      'the command',
      15_000,
    );
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isGone(pid)).toBe(false);
    r.stop('stopped from the phone');
    const outcome = await running;
    expect(outcome).toEqual({
      ok: false,
      summary: 'Turn stopped: stopped from the phone.',
      placeholder: false,
      close: false,
    });
    // Gone when the turn is reported stopped, whether Codex or the adapter ended it.
    expect(isGone(pid)).toBe(true);
  });

  it('E4: Stop while an approval waits: Codex withdraws it, its card closes, nothing runs', async () => {
    home = makeCodexHome(fake);
    script(escalated('touch never.txt'));
    let withdrawn = false;
    const r: Recorded = recorder(
      (_ask, cleared) =>
        new Promise((resolve) => {
          cleared.addEventListener('abort', () => {
            withdrawn = true;
            resolve({ allowed: false, why: 'cancelled' });
          });
          r.stop('stopped from the phone');
        }),
    );
    const outcome = await session().runTurn('make a file', r.ctx);
    expect(withdrawn).toBe(true);
    expect(outcome).toMatchObject({ ok: false, summary: 'Turn stopped: stopped from the phone.' });
    expect(existsSync(path.join(home.work, 'never.txt'))).toBe(false);
    expect(r.events).toContain('finished cancelled');
  });

  it('E4: an interrupt Codex never answers: after the backstop the process is killed, and the next turn resumes the thread in a new one', async () => {
    home = makeCodexHome(fake);
    const seen = script({ kind: 'hang' });
    const clock = makeManualTimers();
    const s = session(undefined, { timers: clock });
    const r = recorder();
    const running = s.runTurn('wait for the model', r.ctx);
    await until(() => seen.length === 1, 'the model request', 15_000);
    const pid = s.pid!;
    process.kill(-pid, 'SIGSTOP'); // it can no longer answer turn/interrupt
    r.stop('stopped from the phone');
    clock.advance(INTERRUPT_BACKSTOP_MS);
    const outcome = await running;
    expect(outcome).toMatchObject({ ok: false, summary: 'Turn stopped: stopped from the phone.' });
    expect(isGone(pid)).toBe(true);
    expect(s.pid).toBeNull();

    const again = script({ kind: 'text', text: 'Back again.' });
    const next = await s.runTurn('are you there?', recorder().ctx);
    expect(next).toMatchObject({ ok: true, summary: 'Back again.' });
    expect(s.pid).not.toBe(pid);
    expect(sent(again[0])).toContain('wait for the model');
  });

  it('E4: Stop while Codex is still starting ends the turn, and the process once it is up', async () => {
    home = makeCodexHome(fake);
    const s = session();
    const r = recorder();
    let pid = 0;
    r.ctx.nativeSession = () => (pid = s.pid ?? 0);
    const running = s.runTurn('hello', r.ctx);
    r.stop('stopped from the phone');
    expect(await running).toMatchObject({
      ok: false,
      summary: 'Turn stopped: stopped from the phone.',
    });
    await until(() => pid > 0 && isGone(pid) && s.pid === null, 'the process to be gone', 15_000);
  });

  it('E10: a thread resumed in a new process continues with its history', async () => {
    home = makeCodexHome(fake);
    script({ kind: 'text', text: 'I will remember 4242.' });
    const first = session();
    await first.runTurn('remember the number 4242', recorder().ctx);
    const threadId = first.threadId!;
    const firstPid = first.pid!;
    await first.close();
    expect(isGone(firstPid)).toBe(true);

    const seen = script({ kind: 'text', text: 'It was 4242.' });
    const second = session(threadId);
    const outcome = await second.runTurn('which number?', recorder().ctx);
    expect(second.threadId).toBe(threadId);
    expect(outcome).toMatchObject({ ok: true, summary: 'It was 4242.' });
    const history = sent(seen[0]);
    expect(history).toContain('remember the number 4242');
    expect(history).toContain('I will remember 4242.');
    expect(history).toContain('which number?');
  });

  it('E10: Codex killed mid-turn ends the turn with a clear message; the next turn resumes', async () => {
    home = makeCodexHome(fake);
    const seen = script({ kind: 'hang' });
    const s = session();
    const running = s.runTurn('wait for the model', recorder().ctx);
    await until(() => seen.length === 1, 'the model request', 15_000);
    const pid = s.pid!;
    process.kill(-pid, 'SIGKILL');
    const outcome = await running;
    expect(outcome.ok).toBe(false);
    expect(outcome.summary).toMatch(/^Codex stopped unexpectedly \(SIGKILL\)/);
    expect(s.pid).toBeNull();
    script({ kind: 'text', text: 'Still here.' });
    expect(await s.runTurn('again', recorder().ctx)).toMatchObject({
      ok: true,
      summary: 'Still here.',
    });
  });

  /** A command that writes its pid (and its child's) and waits a minute: the command of these tests. */
  const longCommand = () =>
    escalated(
      `node -e "const c = require('child_process').spawn('sleep', ['60'], {stdio: 'ignore'}); require('fs').writeFileSync('pids', process.pid + ' ' + c.pid); setTimeout(() => {}, 60000)"`,
    );
  const commandPids = async () => {
    const file = path.join(home.work, 'pids');
    await until(
      () => existsSync(file) && readFileSync(file, 'utf8').includes(' '),
      'the command to run',
      15_000,
    );
    return readFileSync(file, 'utf8').split(' ').map(Number);
  };

  it("E10 faults: Codex killed while a command it started runs: the turn ends saying Codex stopped, the card's tool is finished, and the command's processes are gone", async () => {
    home = makeCodexHome(fake);
    script(longCommand());
    const s = session();
    const r = recorder(() => ({ allowed: true }));
    const running = s.runTurn('run something long', r.ctx);
    const pids = await commandPids();
    expect(pids.every((p) => !isGone(p))).toBe(true);
    // The whole app-server group dies (the node launcher and the native server); the command
    // runs in a session of its own, so only the adapter can end it.
    process.kill(-s.pid!, 'SIGKILL');
    const outcome = await running;
    expect(outcome.ok).toBe(false);
    expect(outcome.summary).toMatch(/^Codex stopped unexpectedly \(SIGKILL\)/);
    expect(r.events).toContain('finished cancelled');
    // Gone by the time the turn is reported ended.
    expect(pids.every(isGone)).toBe(true);
    expect(liveInGroup(pids[0]!)).toEqual([]);
  });

  it("E10 faults: only Codex's launcher killed: the turn ends saying Codex stopped, and neither the native server nor the command is left", async () => {
    home = makeCodexHome(fake);
    script(longCommand());
    const s = session();
    const running = s.runTurn('run something long', recorder(() => ({ allowed: true })).ctx);
    const pids = await commandPids();
    const launcher = s.pid!;
    const server = liveInGroup(launcher)
      .map((l) => Number(l.split(' ')[0]))
      .filter((p) => p !== launcher);
    expect(server.length).toBeGreaterThan(0);
    process.kill(launcher, 'SIGKILL');
    expect((await running).summary).toMatch(/^Codex stopped unexpectedly \(SIGKILL\)/);
    // Gone by the time the turn is reported ended.
    expect([...server, ...pids].filter((p) => !isGone(p))).toEqual([]);
    expect(liveInGroup(launcher)).toEqual([]);
    expect(liveInGroup(pids[0]!)).toEqual([]);
  });

  it("E10: closing the session (the machine's stop) while a command runs ends the command's processes", async () => {
    home = makeCodexHome(fake);
    script(longCommand());
    const s = session();
    const running = s.runTurn('run something long', recorder(() => ({ allowed: true })).ctx);
    const pids = await commandPids();
    await s.close();
    expect((await running).ok).toBe(false);
    expect(pids.every(isGone)).toBe(true);
  });

  it('E10: a codex binary that is not there: the turn says so, naming the path', async () => {
    home = makeCodexHome(fake);
    const missing = path.join(home.dir, 'no-such-codex');
    const s = session(undefined, { codex: { command: missing, args: [] } });
    const outcome = await s.runTurn('hello', recorder().ctx);
    expect(outcome).toMatchObject({ ok: false });
    expect(outcome.summary).toBe(
      `Codex could not start: cannot start ${missing}: spawn ${missing} ENOENT`,
    );
    expect(s.pid).toBeNull();
  });

  it('E10: a stored thread Codex no longer has: the turn says it cannot be resumed; forgetting it starts a new one', async () => {
    home = makeCodexHome(fake);
    const gone = '01a250b1-0000-7000-8000-000000000000';
    const s = session(gone);
    const outcome = await s.runTurn('hello', recorder().ctx);
    expect(outcome.ok).toBe(false);
    expect(outcome.summary).toMatch(`Codex could not start: cannot resume thread ${gone}: `);
    expect(s.pid).toBeNull();
    expect(s.resumeFailed).toBe(true);
    // The caller may start afresh (and say so): a new thread, not the lost one.
    s.forgetThread();
    script({ kind: 'text', text: 'A new start.' });
    expect(await s.runTurn('hello again', recorder().ctx)).toMatchObject({ ok: true });
    expect(s.threadId).not.toBe(gone);
  });

  const FAULTS: [string, FakeReply, RegExp][] = [
    ['401', { kind: 'status', status: 401, message: 'bad key' }, /401 Unauthorized/],
    ['429', { kind: 'status', status: 429, message: 'slow down' }, /429 Too Many Requests/],
    ['500', { kind: 'status', status: 500, message: 'boom' }, /high demand|500/],
    ['a model that never answers', { kind: 'hang' }, /idle timeout/],
  ];
  for (const [name, reply, message] of FAULTS) {
    it(`E10: ${name} ends the turn with Codex's own message and leaves no process`, async () => {
      home = makeCodexHome(fake);
      script(reply);
      const s = session();
      const r = recorder();
      let pid = 0;
      r.ctx.nativeSession = () => (pid = s.pid ?? 0);
      const outcome = await s.runTurn('hello', r.ctx);
      expect(outcome.ok).toBe(false);
      expect(outcome.summary).toMatch(message);
      expect(s.pid).toBeNull();
      expect(pid).toBeGreaterThan(0);
      expect(isGone(pid)).toBe(true);
    });
  }
});
