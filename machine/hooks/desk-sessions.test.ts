import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MachineMessage } from '../../protocol/index.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { is, relaySuite, rid } from '../test-support/relay-suite.ts';
import {
  callLine as call,
  resultLine as result,
  saidLine as said,
  userLine as user,
} from '../test-support/claude-session-file.ts';
import { HOOK_PROGRAM } from './claude-settings.ts';

// E10 (desk sessions): the machine's side of Claude Code's hooks, fed through the real hook
// program with the events as the installed CLI sends them (the CLI itself: desk-hooks.test.ts).

const suite = relaySuite();

function hook(socket: string, event: object): Promise<string> {
  const child = spawn(process.execPath, [HOOK_PROGRAM, socket], { stdio: 'pipe' });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stdin.end(JSON.stringify(event));
  return new Promise((r) => child.on('exit', () => r(out)));
}

describe('E10: sessions started at the desk, at the machine', () => {
  it('E10 hooks: a card nobody answers expires and the hook gets no decision — never an allow; Claude’s own dialog decides', async () => {
    const timers = makeManualTimers(Date.now());
    const w = await suite.world({ timers, approvalTimeoutMs: 60_000 });
    const phone = await w.phone();
    await phone.waitFor(is('machine.status'));
    const decision = hook(w.machine.hookSocket!, {
      hook_event_name: 'PermissionRequest',
      session_id: 'desk-expire',
      cwd: w.root,
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf build', description: 'Clean' },
    });
    const card = await phone.waitFor(is('approval.request'), 10_000);
    expect(card.risk).toEqual({ reason: 'recursive-delete' });
    timers.advance(60_000);
    expect(await decision).toBe('');
    const closed = await phone.waitFor(
      (m): m is Extract<MachineMessage, { type: 'approval.closed' }> =>
        m.type === 'approval.closed' && m.approvalId === card.approvalId,
    );
    expect(closed.resolution).toBe('expired');
  });

  it('E10 hooks: the terminal first — a PostToolUse of the same tool and input closes the card as local and the waiting hook ends with no decision; a PostToolUse of another command does not', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    await phone.waitFor(is('machine.status'));
    const ask = { command: 'npm test', description: 'Run the tests' };
    const base = { session_id: 'desk-terminal', cwd: w.root };
    const decision = hook(w.machine.hookSocket!, {
      ...base,
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: ask,
    });
    const card = await phone.waitFor(is('approval.request'), 10_000);
    await hook(w.machine.hookSocket!, {
      ...base,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'npm run lint', description: 'Lint' },
      tool_use_id: 'toolu_other',
    });
    expect(w.machine.pendingApprovals().map((a) => a.approvalId)).toEqual([card.approvalId]);
    await hook(w.machine.hookSocket!, {
      ...base,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { ...ask, timeout: 120000 },
      tool_use_id: 'toolu_1',
    });
    expect(await decision).toBe('');
    const closed = await phone.waitFor(
      (m): m is Extract<MachineMessage, { type: 'approval.closed' }> =>
        m.type === 'approval.closed' && m.approvalId === card.approvalId,
    );
    expect(closed.resolution).toBe('local');
  });

  it('E10 hooks: no Stop (E4) for a desk session — a session.interrupt is refused not-running (the machine runs no turn of it) and its open card stays open', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    await phone.waitFor(is('machine.status'));
    const decision = hook(w.machine.hookSocket!, {
      hook_event_name: 'PermissionRequest',
      session_id: 'desk-stop',
      cwd: w.root,
      tool_name: 'Bash',
      tool_input: { command: 'npm test', description: 'Run the tests' },
    });
    const card = await phone.waitFor(is('approval.request'), 10_000);
    const from = phone.messages.length;
    phone.send({ type: 'session.interrupt', requestId: rid(), sessionId: card.sessionId });
    expect(await phone.waitFor(is('error'), 5000, from)).toMatchObject({
      reason: 'not-running',
      sessionId: card.sessionId,
      context: 'session.interrupt',
    });
    expect(w.machine.pendingApprovals().map((a) => a.approvalId)).toEqual([card.approvalId]);
    expect(w.machine.sessions()).toMatchObject([
      { sessionId: card.sessionId, live: false, state: 'awaiting_approval' },
    ]);
    phone.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: card.approvalId,
      decision: 'deny',
    });
    expect(JSON.parse(await decision)).toMatchObject({
      hookSpecificOutput: { decision: { behavior: 'deny' } },
    });
  });

  it('E10 hooks: a question (AskUserQuestion) is left to the terminal: no card, the hook gives no decision at once', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    await phone.waitFor(is('machine.status'));
    const from = phone.messages.length;
    const out = await hook(w.machine.hookSocket!, {
      hook_event_name: 'PermissionRequest',
      session_id: 'desk-question',
      cwd: w.root,
      tool_name: 'AskUserQuestion',
      tool_input: {
        questions: [{ question: 'Which?', header: 'Pick', options: [], multiSelect: false }],
      },
    });
    expect(out).toBe('');
    expect(w.machine.pendingApprovals()).toEqual([]);
    expect(phone.messages.slice(from).some((m) => m.type === 'approval.request')).toBe(false);
  });

  it('E10 hooks: after a restart the same Claude session is the same session, still live:false, and its transcript resumes where reading stopped — what Claude wrote while the machine was down is shown at start (a half-written line whole, a tool result still named), nothing twice', async () => {
    const w = await suite.world();
    const transcript = path.join(w.root, 'claude-session.jsonl');
    const half = said('Renamed 3 images.');
    writeFileSync(
      transcript,
      user('Rename the images') + call('toolu_1', 'mv a.png b.png') + half.slice(0, 25),
    );
    const event = { session_id: 'desk-restart', transcript_path: transcript, cwd: w.root };
    await hook(w.machine.hookSocket!, {
      ...event,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'Rename the images',
    });
    const [s] = w.machine.sessions();
    expect(s).toMatchObject({
      title: 'Rename the images',
      dispatched: false,
      live: false,
      agent: 'claude',
      state: 'running',
    });
    const before = ['Rename the images', 'Bash: mv a.png b.png'];
    expect(w.machine.transcript(s!.sessionId).map((e) => e.text)).toEqual(before);

    // The machine goes down; Claude writes on meanwhile (and its session may end at the terminal,
    // so no event of it may ever come again).
    await w.machine.close();
    appendFileSync(transcript, half.slice(25) + result('toolu_1', 'moved'));
    const m = await w.restart();
    // Its terminal was not touched by the machine's stop: idle, not "cut short".
    expect(m.sessions()).toMatchObject([{ sessionId: s!.sessionId, live: false, state: 'idle' }]);
    const caughtUp = [...before, 'Renamed 3 images.', 'Bash result:\nmoved'];
    expect(m.transcript(s!.sessionId).map((e) => e.text)).toEqual(caughtUp);

    // The next event reads on from there: the new line once, nothing before it again.
    appendFileSync(transcript, said('Done.'));
    await hook(m.hookSocket!, { ...event, hook_event_name: 'Stop' });
    expect(m.sessions()).toMatchObject([{ sessionId: s!.sessionId, live: false, state: 'done' }]);
    expect(m.transcript(s!.sessionId).map((e) => e.text)).toEqual([...caughtUp, 'Done.']);
    // A restart with nothing new adds nothing.
    const again = await w.restart();
    expect(again.transcript(s!.sessionId).map((e) => e.text)).toEqual([...caughtUp, 'Done.']);
  });
  it('E10 hooks: what Claude writes to its file after the Stop event (its last reply) reaches the transcript with no further event — the file is watched, also when it did not exist at the first event', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    await phone.waitFor(is('machine.status'));
    const transcript = path.join(w.root, 'claude-late.jsonl');
    const event = { session_id: 'desk-late', transcript_path: transcript, cwd: w.root };
    // The first event comes before Claude has created its file.
    await hook(w.machine.hookSocket!, {
      ...event,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'Tidy up',
    });
    writeFileSync(transcript, user('Tidy up'));
    await hook(w.machine.hookSocket!, { ...event, hook_event_name: 'Stop' });
    const [s] = w.machine.sessions();
    expect(s).toMatchObject({ state: 'done' });
    // Written after the last event: read because the file changed, not because a hook ran.
    appendFileSync(transcript, said('All tidy.'));
    await phone.waitFor(
      (m) =>
        m.type === 'session.update' &&
        m.session.sessionId === s!.sessionId &&
        w.machine.transcript(s!.sessionId).some((e) => e.text === 'All tidy.'),
      10_000,
    );
    expect(w.machine.transcript(s!.sessionId).map((e) => e.text)).toEqual(['Tidy up', 'All tidy.']);
  });
});
