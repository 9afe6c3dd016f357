import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MachineMessage } from '../../protocol/index.ts';
import { startDeviceLink, type DeviceLink } from './device-link.ts';
import { captureLog, type CapturedLog } from '../log.ts';
import {
  serveDevice,
  runPrintedCommand,
  type ServingExecutor,
} from '../test-support/executor-process.ts';
import { liveInGroup } from '../../testkit/process-group.ts';
import { isGone } from '../../testkit/process-group.ts';
import { dispatch, finalOf, is, relaySuite } from '../test-support/relay-suite.ts';
import type { TestPhone } from '../test-support/test-phone.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';
import { until } from '../../testkit/until.ts';

// The mock machine hosts the device lane; while an enrolled executor (a real
// `npm run device` child) is connected, the scripted agent's tools run on it, otherwise here.
// The executor is started with DEVICE_MARK in its environment and the test process has none,
// so `echo [$DEVICE_MARK]` says which side ran the command.

const suite = relaySuite();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function deviceWorld(lane: Parameters<typeof startDeviceLink>[0]['lane'] = {}) {
  // The machine needs the provider at creation; the link needs the machine's resolved roots.
  const ref: { link?: DeviceLink } = {};
  const w = await suite.world({ toolHost: () => ref.link!.provider() });
  const log: CapturedLog = captureLog();
  const link = await startDeviceLink({
    stateDir: path.join(w.dir, 'lane-state'),
    port: 0,
    roots: w.machine.allowedRoots,
    log,
    lane,
  });
  ref.link = link;
  cleanups.push(() => link.close());
  const keyDir = path.join(w.dir, 'device-key');
  // The printed command, run as printed (plus a key folder of the test's own).
  const enrolled = await runPrintedCommand(link.enrollCommand(w.root), ['--key-dir', keyDir]);
  expect(enrolled.code, enrolled.err).toBe(0);
  let executor: ServingExecutor | undefined;
  const online = () => link.lane.devices().some((d) => d.online);
  return {
    w,
    link,
    log,
    async serve(env: NodeJS.ProcessEnv = {}) {
      const e = serveDevice(keyDir, { DEVICE_MARK: 'on-device', ...env });
      executor = e;
      cleanups.push(() => e.stop('SIGKILL'));
      await until(online, 'the device to come online', 20_000);
      return e;
    },
    async stopDevice(signal: NodeJS.Signals = 'SIGTERM') {
      await executor!.stop(signal);
      await until(() => !online(), 'the device to go offline', 10_000);
    },
  };
}

async function approveNext(phone: TestPhone, from: number) {
  const a = await phone.waitFor(is('approval.request'), 10_000, from);
  phone.send({
    type: 'approval.respond',
    requestId: crypto.randomUUID(),
    approvalId: a.approvalId,
    decision: 'allow',
  });
  return a;
}

const errorsFor = (phone: TestPhone, sessionId: string) =>
  phone.messages.filter(
    (m): m is Extract<MachineMessage, { type: 'error' }> =>
      m.type === 'error' && m.sessionId === sessionId,
  );

describe('the mock machine runs its tools on an enrolled device', () => {
  it("DE5: while the device is connected, a scripted run: executes on it; output reaches the transcript and turn summary; read/list/write (into a new folder) go through it too; E4: session.interrupt stops a command on the device through the executor's cancel, its process group gone", async () => {
    const d = await deviceWorld();
    await d.serve();
    writeFileSync(path.join(d.w.root, 'notes.txt'), 'from the workspace\n');
    const phone = await d.w.phone();
    const from = phone.messages.length;
    const r = await dispatch(phone, {
      prompt:
        'run: echo [$DEVICE_MARK]\nread: notes.txt\nlist: .\nwrite: made/out.txt\nwritten on the device',
    });
    expect(r.ok).toBe(true);
    await approveNext(phone, from);
    const writeAt = phone.messages.length;
    await approveNext(phone, writeAt);
    const final = await finalOf(phone, r.sessionId!);
    expect(final.ok).toBe(true);
    expect(final.summary).toContain('Ran `echo [$DEVICE_MARK]` (exit 0): [on-device]');
    expect(final.summary).toContain('Read notes.txt');
    expect(final.summary).toMatch(/Listed \.: .*notes\.txt/);
    // The folder did not exist: the agent's write made it on the device first (createDir).
    expect(final.summary).toContain('Wrote made/out.txt');
    expect(readFileSync(path.join(d.w.root, 'made/out.txt'), 'utf8')).toBe(
      'written on the device\n',
    );
    const transcript = d.w.machine
      .transcript(r.sessionId!)
      .map((e) => e.text)
      .join('\n');
    expect(transcript).toContain('$ echo [$DEVICE_MARK]\n[on-device]\n(exit 0)');
    expect(transcript).toContain('from the workspace');
    expect(errorsFor(phone, r.sessionId!)).toEqual([]);
    // The lane really carried them: one committed instruction per tool call, all settled.
    expect(d.link.lane.devices()[0]).toMatchObject({ online: true, inflight: 0 });

    // E4 on the device: the executor's cancel ends the command's whole process group.
    const stopFrom = phone.messages.length;
    const long = await dispatch(phone, { prompt: 'run: echo $$ > pid.txt; sleep 30 & sleep 30' });
    await approveNext(phone, stopFrom);
    const pidFile = path.join(d.w.root, 'pid.txt');
    await until(
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'),
      'the command to start on the device',
    );
    const pgid = Number(readFileSync(pidFile, 'utf8'));
    expect(liveInGroup(pgid).length).toBeGreaterThan(0);
    phone.send({
      type: 'session.interrupt',
      requestId: crypto.randomUUID(),
      sessionId: long.sessionId!,
    });
    const stopped = await finalOf(phone, long.sessionId!);
    expect(stopped).toMatchObject({ ok: false, reason: 'interrupted' });
    await until(() => liveInGroup(pgid).length === 0, 'the group to end', 15_000);
    expect(d.link.lane.devices()[0]).toMatchObject({ online: true, inflight: 0 });
  }, 60_000);

  it('§4 consumer-side bound: the host drains every dispatch, so 3 MiB of output (over the lane’s 2 MiB bound) finishes with exit 0 and is never cancelled (no output_overflow)', async () => {
    const d = await deviceWorld();
    await d.serve();
    const phone = await d.w.phone();
    const from = phone.messages.length;
    const r = await dispatch(phone, {
      prompt: "run: echo [$DEVICE_MARK]; head -c 3145728 /dev/zero | tr '\\0' x",
    });
    await approveNext(phone, from);
    const final = await finalOf(phone, r.sessionId!);
    expect(final.summary).toContain('(exit 0)');
    const transcript = d.w.machine
      .transcript(r.sessionId!)
      .map((e) => e.text)
      .join('\n');
    expect(transcript).toContain('[on-device]');
    expect(errorsFor(phone, r.sessionId!)).toEqual([]);
    expect(d.link.lane.auditEvents().some((e) => e.event === 'output_overflow')).toBe(false);
  }, 60_000);

  it('DE5, H6: the printed command enrolls even when the credential begins with "-" (the secrets travel in the environment)', async () => {
    const tmp = makeTmpDir();
    cleanups.push(async () => tmp.cleanup());
    const stateDir = path.join(tmp.dir, 'state');
    mkdirSync(stateDir, { mode: 0o700 });
    // 43 base64url characters = 32 bytes, beginning with '-'.
    writeFileSync(path.join(stateDir, 'device-user-credential'), `-${'A'.repeat(42)}\n`, {
      mode: 0o600,
    });
    const link = await startDeviceLink({ stateDir, port: 0, roots: [tmp.dir], log: captureLog() });
    cleanups.push(() => link.close());
    expect(link.credential.startsWith('-')).toBe(true);
    const r = await runPrintedCommand(link.enrollCommand(tmp.dir), [
      '--key-dir',
      path.join(tmp.dir, 'key'),
    ]);
    expect(r.code, r.err).toBe(0);
  }, 30_000);

  it('DE5: with the device disconnected the tools run locally, and a device that comes back takes over again', async () => {
    const d = await deviceWorld();
    await d.serve();
    await d.stopDevice();
    const phone = await d.w.phone();
    let from = phone.messages.length;
    const r = await dispatch(phone, { prompt: 'run: echo [$DEVICE_MARK]' });
    await approveNext(phone, from);
    expect((await finalOf(phone, r.sessionId!)).summary).toContain('(exit 0): []');

    await d.serve();
    from = phone.messages.length;
    const again = await dispatch(phone, { prompt: 'run: echo [$DEVICE_MARK]' });
    await approveNext(phone, from);
    expect((await finalOf(phone, again.sessionId!)).summary).toContain('(exit 0): [on-device]');
  }, 60_000);

  it('DE5 + spec `error`: a device that dies mid-command surfaces outcome_unknown as an error pinned to the session, and the summary says so', async () => {
    const d = await deviceWorld({ reconnectGraceMs: 300 });
    await d.serve();
    const phone = await d.w.phone();
    const from = phone.messages.length;
    // The sleeper runs in the executor's own process group (it outlives a kill -9 of the
    // executor), so it leaves its pid for the test to end it.
    const r = await dispatch(phone, { prompt: 'run: echo $$ > sleeper.pid && exec sleep 30' });
    await approveNext(phone, from);
    const pidFile = path.join(d.w.root, 'sleeper.pid');
    await until(
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '',
      'the command to start',
      10_000,
    );
    const sleeper = Number(readFileSync(pidFile, 'utf8'));
    cleanups.push(async () => {
      try {
        process.kill(sleeper, 'SIGKILL');
      } catch {
        // already gone
      }
      await until(() => isGone(sleeper), 'the sleeper to be gone');
    });
    await d.stopDevice('SIGKILL');
    const final = await finalOf(phone, r.sessionId!);
    expect(final.summary).toContain('failed (outcome_unknown)');
    const errors = errorsFor(phone, r.sessionId!);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ context: 'tool', sessionId: r.sessionId });
    expect(errors[0]!.message).toMatch(/^dev_\S+: /);
  }, 60_000);

  it('DE5 + spec `error`: a device whose shell cannot start answers a real error code that reaches the phone as an `error`', async () => {
    const d = await deviceWorld();
    const missing = path.join(d.w.dir, 'no-such-shell');
    mkdirSync(path.join(d.w.dir, 'unused'), { recursive: true });
    await d.serve({ SHELL: missing });
    const phone = await d.w.phone();
    const from = phone.messages.length;
    const r = await dispatch(phone, { prompt: 'run: echo hi' });
    await approveNext(phone, from);
    const final = await finalOf(phone, r.sessionId!);
    expect(final.summary).toMatch(/failed \((shell_unavailable|spawn_error)\)/);
    const errors = errorsFor(phone, r.sessionId!);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ context: 'tool' });
  }, 60_000);

  it('H6: with two devices enrolled and online, tools run on the one enrolled last, never the first online; --device picks the other; an unknown one stops the start', async () => {
    const ref: { link?: DeviceLink } = {};
    const w = await suite.world({ toolHost: () => ref.link!.provider() });
    const stateDir = path.join(w.dir, 'lane-state');
    const start = async (port: number, device?: string) => {
      const link = await startDeviceLink({
        stateDir,
        port,
        roots: w.machine.allowedRoots,
        log: captureLog(),
        ...(device !== undefined ? { device } : {}),
      });
      cleanups.push(() => link.close());
      ref.link = link;
      return link;
    };
    const first = await start(0);
    const keys = [path.join(w.dir, 'key-a'), path.join(w.dir, 'key-b')];
    for (const keyDir of keys) {
      const r = await runPrintedCommand(first.enrollCommand(w.root), ['--key-dir', keyDir]);
      expect(r.code, r.err).toBe(0);
    }
    const [a, b] = first.lane.devices().map((d) => d.deviceId);
    // A comes online first: "the first online" would be A.
    const serveA = serveDevice(keys[0]!, { DEVICE_MARK: 'A' });
    cleanups.push(() => serveA.stop('SIGKILL'));
    await until(() => first.lane.devices()[0]!.online, 'A online', 20_000);
    const serveB = serveDevice(keys[1]!, { DEVICE_MARK: 'B' });
    cleanups.push(() => serveB.stop('SIGKILL'));
    await until(() => first.lane.devices().every((d) => d.online), 'both online', 20_000);
    expect(first.chosen()).toEqual({ deviceId: b, online: true, why: 'last-enrolled' });
    const phone = await w.phone();
    const ran = async () => {
      const from = phone.messages.length;
      const r = await dispatch(phone, { prompt: 'run: echo [$DEVICE_MARK]' });
      await approveNext(phone, from);
      return (await finalOf(phone, r.sessionId!)).summary;
    };
    expect(await ran()).toContain('(exit 0): [B]');

    // `--device <A>`: the same lane (port and registry) started again with the choice.
    const port = Number(new URL(first.lane.url).port);
    await first.close();
    const chosen = await start(port, a);
    await until(() => chosen.chosen()?.online === true, 'A back online', 30_000);
    expect(chosen.chosen()).toEqual({ deviceId: a, online: true, why: 'chosen' });
    expect(await ran()).toContain('(exit 0): [A]');
    await chosen.close();
    await expect(start(port, 'dev_nobody')).rejects.toMatchObject({ code: 'device-unknown' });
  }, 90_000);
});
