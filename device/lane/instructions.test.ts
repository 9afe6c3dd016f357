import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { collect, startTestLane, type TestLane } from '../test-support/lane-fixture.ts';

let t: TestLane | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});
const EXEC0 = { ok: true, kind: 'exec', exitCode: 0 };

const execWith = async (chunks: [string, string | number][], outcome: object) => {
  t = await startTestLane();
  const { id, dev } = await t.online();
  const h = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'x' } });
  await dev.next('instruction');
  chunks.forEach(([kind, v], seq) => dev.chunk(h.instructionId, seq, kind, v));
  dev.result(h.instructionId, outcome);
  return h.outcome;
};

describe('§3.1 the instruction frame and the outcome-kind check', () => {
  it('instruction carries gen, instructionId (ins_ULID), rootSessionId, issuedSeq, kind, args, cwd, shellEnv, timeoutMs', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    t.lane.dispatch(id.deviceId, {
      kind: 'exec',
      args: { command: 'ls' },
      cwd: '/w',
      shellEnv: { A: '1' },
      timeoutMs: 5000,
      rootSessionId: 's1',
    });
    t.lane.dispatch(id.deviceId, { kind: 'exists', args: { path: '/w' } });
    const a = await dev.next('instruction');
    const b = await dev.next('instruction');
    expect(a).toEqual({
      t: 'instruction',
      gen: dev.gen,
      instructionId: expect.stringMatching(/^ins_[0-7][0-9A-HJKMNP-TV-Z]{25}$/),
      rootSessionId: 's1',
      issuedSeq: 0,
      kind: 'exec',
      args: { command: 'ls' },
      cwd: '/w',
      shellEnv: { A: '1' },
      timeoutMs: 5000,
    });
    expect(b.issuedSeq).toBe(1);
  });

  it('an execStream answered with { ok: true, kind: "void" } is a protocol violation: the instruction fails', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'execStream', args: { command: 'x' } });
    await dev.next('instruction');
    dev.result(h.instructionId, { ok: true, kind: 'void' });
    expect(await h.outcome).toMatchObject({
      ok: false,
      errorCode: 'outcome_unknown',
      message: expect.stringMatching(/protocol violation/),
    });
    await t.audited((e) => e.event === 'protocol_violation');
  });

  it('exists without existsValue is a protocol violation, not a false', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'exists', args: { path: '/x' } });
    await dev.next('instruction');
    dev.result(h.instructionId, { ok: true, kind: 'stat' });
    expect(await h.outcome).toMatchObject({
      errorCode: 'outcome_unknown',
      message: expect.stringMatching(/existsValue/),
    });
  });

  it('a cancelled outcome and any ok:false outcome are always accepted', async () => {
    expect(await execWith([], { ok: true, kind: 'cancelled', state: 'killed' })).toEqual({
      ok: true,
      kind: 'cancelled',
      state: 'killed',
    });
    await t!.stop();
    expect(await execWith([], { ok: false, errorCode: 'spawn_error', message: 'no sh' })).toEqual({
      ok: false,
      errorCode: 'spawn_error',
      message: 'no sh',
    });
  });

  it('§3.2 a kind the device did not declare is never dispatched: not_supported, never started', async () => {
    t = await startTestLane();
    const { id } = await t.online({ supports: ['exec', 'exists', 'futureKind'] });
    const h = t.lane.dispatch(id.deviceId, { kind: 'readLink', args: { path: '/l' } });
    expect(await h.outcome).toMatchObject({ errorCode: 'not_supported' });
    expect(h.state()).toBe('terminal_never_started');
  });

  it('a device that is not connected or not enrolled: target_unavailable, never started', async () => {
    t = await startTestLane();
    const id = await t.enroll();
    for (const deviceId of [id.deviceId, 'dev_01J8ZQ4T9X0000000000000000']) {
      const h = t.lane.dispatch(deviceId, { kind: 'exists', args: { path: '/' } });
      expect(await h.outcome).toMatchObject({ errorCode: 'target_unavailable' });
    }
    const bad = t.lane.dispatch(id.deviceId, { kind: 'exists', args: { path: 'relative' } });
    expect(await bad.outcome).toMatchObject({
      errorCode: 'invalid',
      message: expect.stringMatching(/args\.path/),
    });
  });
});

describe('§3.4 write payloads', () => {
  it('writeFile content is sliced into begin / chunk × N (256 KiB, ascending offsets) / commit with the hex sha256', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const content = Buffer.alloc(600 * 1024);
    for (let i = 0; i < content.length; i++) content[i] = (i * 7) % 251;
    const sha = createHash('sha256').update(content).digest('hex');
    const h = t.lane.dispatch(id.deviceId, { kind: 'writeFile', args: { path: '/w/f' }, content });
    const ins = await dev.next('instruction');
    expect(ins.args).toEqual({ path: '/w/f', contentLen: content.length, sha256: sha });
    expect(await dev.next('payload')).toMatchObject({
      part: 'begin',
      totalLen: content.length,
      sha256: sha,
      instructionId: h.instructionId,
    });
    const parts: Buffer[] = [];
    const offsets: number[] = [];
    for (let n = 0; n < 3; n++) {
      const p = await dev.next('payload');
      expect(p.part).toBe('chunk');
      offsets.push(p.offset as number);
      parts.push(Buffer.from(p.dataB64 as string, 'base64'));
    }
    expect(offsets).toEqual([0, 262144, 524288]);
    expect(Buffer.concat(parts).equals(content)).toBe(true);
    expect(await dev.next('payload')).toMatchObject({
      part: 'commit',
      totalLen: content.length,
      sha256: sha,
    });
    dev.result(h.instructionId, {
      ok: true,
      kind: 'write',
      canonicalPath: '/w/f',
      inode: '42',
      created: true,
    });
    expect(await h.outcome).toMatchObject({ kind: 'write', created: true });
  });

  it('an empty write still sends begin and commit (no chunk)', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    t.lane.dispatch(id.deviceId, { kind: 'appendFile', args: { path: '/w/f' } });
    await dev.next('instruction');
    expect(await dev.next('payload')).toMatchObject({ part: 'begin', totalLen: 0 });
    expect(await dev.next('payload')).toMatchObject({ part: 'commit', totalLen: 0 });
  });
});

describe('§4 streaming: the exit chunk cross-checks', () => {
  it('an exec with no output ends with exit at streamSeq 0 and succeeds', async () => {
    expect(await execWith([['exit', 0]], EXEC0)).toEqual(EXEC0);
  });
  it('zero exit chunks for a successful exec ⇒ fails', async () => {
    expect(await execWith([['stdout', 'hi']], EXEC0)).toMatchObject({
      errorCode: 'outcome_unknown',
      message: expect.stringMatching(/exactly one exit/),
    });
  });
  it('more than one exit chunk ⇒ fails', async () => {
    expect(
      await execWith(
        [
          ['exit', 0],
          ['exit', 0],
        ],
        EXEC0,
      ),
    ).toMatchObject({ errorCode: 'outcome_unknown' });
  });
  it('an exit chunk that is not the last delivered chunk ⇒ fails', async () => {
    expect(
      await execWith(
        [
          ['exit', 0],
          ['stdout', 'late'],
        ],
        EXEC0,
      ),
    ).toMatchObject({
      errorCode: 'outcome_unknown',
      message: expect.stringMatching(/after the exit/),
    });
  });
  it('exit.exitCode different from the result exitCode ⇒ fails', async () => {
    expect(await execWith([['exit', 1]], EXEC0)).toMatchObject({
      errorCode: 'outcome_unknown',
      message: expect.stringMatching(/differs/),
    });
  });
  it('a read-family instruction streams data chunks and no exit chunk', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'readTextFile', args: { path: '/f' } });
    const out = collect(h);
    await dev.next('instruction');
    dev.chunk(h.instructionId, 0, 'data', 'hello ');
    dev.chunk(h.instructionId, 1, 'data', 'world');
    dev.result(h.instructionId, { ok: true, kind: 'read' });
    expect(await h.outcome).toEqual({ ok: true, kind: 'read' });
    expect(Buffer.concat((await out).map((i) => i.data as Buffer)).toString()).toBe('hello world');
    const bad = t.lane.dispatch(id.deviceId, { kind: 'readTextFile', args: { path: '/f' } });
    await dev.next('instruction');
    dev.chunk(bad.instructionId, 0, 'exit', 0);
    expect(await bad.outcome).toMatchObject({ errorCode: 'outcome_unknown' });
  });
  it('a result with a gap still open is not believed', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'x' } });
    await dev.next('instruction');
    dev.chunk(h.instructionId, 1, 'exit', 0);
    dev.result(h.instructionId, EXEC0);
    expect(await h.outcome).toMatchObject({
      errorCode: 'outcome_unknown',
      message: expect.stringMatching(/gap/),
    });
  });
  it('output is also available to callback-style hosts (onChunk)', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'execStream', args: { command: 'x' } });
    const seen: string[] = [];
    h.output.onChunk((i) => seen.push(i.kind));
    await dev.next('instruction');
    dev.chunk(h.instructionId, 0, 'stderr', 'e');
    dev.chunk(h.instructionId, 1, 'exit', 3);
    dev.result(h.instructionId, { ok: true, kind: 'exec', exitCode: 3 });
    expect(await h.outcome).toMatchObject({ exitCode: 3 });
    expect(seen).toEqual(['stderr', 'exit']);
  });
});

describe('§3.2 supports must not grow protective faces mid-task', () => {
  it('a device that gained writeFileExclusive since the environment was built has its ordinary writeFile refused', async () => {
    t = await startTestLane();
    const { id } = await t.online({ supports: ['exec', 'writeFile', 'writeFileExclusive'] });
    const before = ['exec', 'writeFile'];
    const refused = t.lane.dispatch(id.deviceId, {
      kind: 'writeFile',
      args: { path: '/a' },
      content: Buffer.from('x'),
      environmentSupports: before,
    });
    expect(await refused.outcome).toMatchObject({
      ok: false,
      errorCode: 'precondition_failed',
      message: expect.stringMatching(/writeFileExclusive/),
    });
    expect(refused.state()).toBe('terminal_never_started');
    const same = t.lane.dispatch(id.deviceId, {
      kind: 'writeFile',
      args: { path: '/a' },
      content: Buffer.from('x'),
      environmentSupports: ['exec', 'writeFile', 'writeFileExclusive'],
    });
    expect(same.state()).toBe('dispatch_committed');
  });
});
