import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MachineMessage } from '../../../protocol/index.ts';
import { CODEX_TEST_ARGS, makeCodexHome, type CodexHome } from '../../test-support/codex-home.ts';
import { startFakeResponses, type FakeResponses } from '../../test-support/fake-responses.ts';
import { isGone } from '../../../testkit/process-group.ts';
import { until } from '../../../testkit/until.ts';
import { dispatch, is, relaySuite, rid } from '../../test-support/relay-suite.ts';
import { mockProvider } from '../mock/provider.ts';
import { codexApprovalAsk, codexProvider } from './provider.ts';

// E10 wiring: the real Codex (codex app-server 0.171.0, fake Responses server) behind the
// machine's agent seam, through a real relay and the test phone — the agent chosen by the
// dispatch, Codex's own tool name on the card, never editable, the command runs on allow.

const suite = relaySuite();
let fake: FakeResponses;
let home: CodexHome | undefined;

beforeAll(async () => {
  fake = await startFakeResponses();
});
afterAll(() => fake.close());
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

describe('E10: Codex behind the phone', () => {
  it("E10: a dispatch naming codex runs Codex: its escalated command is a card with Codex's tool name, not editable; allow runs it; turn.final has Codex's text; model reaches the session", async () => {
    const codexHome = makeCodexHome(fake);
    home = codexHome;
    const codex = codexProvider({ env: codexHome.env, extraArgs: CODEX_TEST_ARGS });
    expect(await codex.check()).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^codex /),
    });
    const w = await suite.world({ agents: [mockProvider, codex] });
    const phone = await w.phone();
    expect((await phone.waitFor(is('machine.status'))).capabilities?.agents).toEqual([
      'mock',
      'codex',
    ]);
    let n = 0;
    fake.respond = () =>
      n++ === 0
        ? {
            kind: 'call',
            name: 'exec_command',
            args: {
              cmd: 'touch from-codex.txt',
              sandbox_permissions: 'require_escalated',
              justification: 'the test asks',
            },
          }
        : { kind: 'text', text: 'Codex made the file.' };
    const requestId = rid();
    phone.send({
      type: 'dispatch.request',
      requestId,
      prompt: 'make a file',
      worktree: false,
      agent: 'codex',
    });
    const r = await phone.waitFor(
      (m): m is Extract<MachineMessage, { type: 'dispatch.result' }> =>
        m.type === 'dispatch.result' && m.requestId === requestId,
    );
    expect(r.ok).toBe(true);
    const a = await phone.waitFor(is('approval.request'), 30_000);
    expect(a).toMatchObject({ sessionId: r.sessionId, tool: 'exec_command' });
    expect(a.editable).toBeUndefined();
    expect(a.detail).toContain('touch from-codex.txt');
    phone.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: a.approvalId,
      decision: 'allow',
    });
    const final = await phone.waitFor(
      (m): m is Extract<MachineMessage, { type: 'turn.final' }> =>
        m.type === 'turn.final' && m.sessionId === r.sessionId,
      30_000,
    );
    expect(final).toMatchObject({ ok: true, summary: 'Codex made the file.' });
    expect(existsSync(path.join(w.root, 'from-codex.txt'))).toBe(true);
    expect(w.machine.sessions().find((s) => s.sessionId === r.sessionId)).toMatchObject({
      agent: 'codex',
      model: 'gpt-5.5',
    });
  });

  it("E10 faults: Codex killed while its card waits ends the turn saying Codex stopped and closes the card; the machine's stop while a command runs leaves none of the command's processes", async () => {
    const codexHome = makeCodexHome(fake);
    home = codexHome;
    const codex = codexProvider({ env: codexHome.env, extraArgs: CODEX_TEST_ARGS });
    const w = await suite.world({ agents: [codex] });
    const phone = await w.phone();
    const escalated = (cmd: string) =>
      ({
        kind: 'call',
        name: 'exec_command',
        args: { cmd, sandbox_permissions: 'require_escalated', justification: 'the test asks' },
      }) as const;
    fake.respond = () => escalated('touch never.txt');
    const r = await dispatch(phone, { prompt: 'make a file' });
    const a = await phone.waitFor(is('approval.request'), 30_000);
    expect(a.sessionId).toBe(r.sessionId);
    // The app-server (launcher and native server) leads a group of its own: kill that group.
    const read = (file: string) => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return ''; // gone meanwhile
      }
    };
    const server = Number(
      readdirSync('/proc').find(
        (p) =>
          /^\d+$/.test(p) &&
          read(`/proc/${p}/cmdline`).includes('app-server') &&
          read(`/proc/${p}/environ`).includes(`CODEX_HOME=${codexHome.dir}\0`),
      ),
    );
    expect(server).toBeGreaterThan(0);
    const group = Number(read(`/proc/${server}/stat`).split(') ')[1]!.split(' ')[2]);
    process.kill(-group, 'SIGKILL');
    const final = await phone.waitFor(
      (m): m is Extract<MachineMessage, { type: 'turn.final' }> =>
        m.type === 'turn.final' && m.sessionId === r.sessionId,
      10_000,
    );
    expect(final.ok).toBe(false);
    expect(final.summary).toMatch(/^Codex stopped unexpectedly \(SIGKILL\)/);
    await phone.waitFor((m) => m.type === 'approval.closed' && m.approvalId === a.approvalId, 5000);
    expect(existsSync(path.join(w.root, 'never.txt'))).toBe(false);
    // A long command, allowed, then the machine stops: nothing of it is left.
    fake.respond = () =>
      escalated(
        `node -e "const c = require('child_process').spawn('sleep', ['60'], {stdio: 'ignore'}); require('fs').writeFileSync('pids', process.pid + ' ' + c.pid); setTimeout(() => {}, 60000)"`,
      );
    const from = phone.messages.length;
    const long = await dispatch(phone, { prompt: 'wait a while' });
    const b = await phone.waitFor(
      (m): m is Extract<MachineMessage, { type: 'approval.request' }> =>
        m.type === 'approval.request' && m.sessionId === long.sessionId,
      30_000,
      from,
    );
    phone.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: b.approvalId,
      decision: 'allow',
    });
    const pidsFile = path.join(w.root, 'pids');
    await until(
      () => existsSync(pidsFile) && readFileSync(pidsFile, 'utf8').includes(' '),
      'the command to run',
      15_000,
    );
    const pids = readFileSync(pidsFile, 'utf8').split(' ').map(Number);
    expect(pids.some((p) => !isGone(p))).toBe(true);
    await w.machine.close();
    expect(pids.every(isGone)).toBe(true);
  });

  it("E10: Codex's requests as the machine's approval kinds: a command is never editable; one file is a write; several files are never remembered", () => {
    expect(
      codexApprovalAsk({
        tool: 'exec_command',
        title: 'Run a command',
        detail: 'ls',
        command: 'ls',
        cwd: '/w',
      }),
    ).toMatchObject({ tool: 'run', agentTool: 'exec_command', editable: false });
    expect(
      codexApprovalAsk({ tool: 'apply_patch', title: 'Edit a', detail: 'd', paths: ['/w/a'] }),
    ).toMatchObject({ tool: 'write', path: '/w/a' });
    expect(
      codexApprovalAsk({
        tool: 'apply_patch',
        title: 'Edit',
        detail: 'd',
        paths: ['/w/a', '/w/b'],
      }),
    ).toMatchObject({ tool: 'other', agentTool: 'apply_patch' });
  });
});
