import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectTestDevice } from '../test-support/test-device.ts';
import { rawEd25519PublicKey, encodeBase64 } from '../wire/index.ts';
import type { ExecutorEvent } from './executor.ts';
import { KEY_FILE, loadKey, RECORD_FILE } from './keystore.ts';
import { isGroupGone } from './proc/proc-stat.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { until } from '../../testkit/until.ts';
import { parseFrame, type SeenFrame } from './test-support/fault-proxy.ts';
import {
  collect,
  makeHarness,
  stdoutBytes,
  stdoutOf,
  type Harness,
} from './test-support/harness.ts';

let h: Harness;
afterEach(async () => h?.close());

type Ev<T extends ExecutorEvent['type']> = Extract<ExecutorEvent, { type: T }>;
const is =
  <T extends ExecutorEvent['type']>(type: T, pred: (e: Ev<T>) => boolean = () => true) =>
  (e: ExecutorEvent): e is Ev<T> =>
    e.type === type && pred(e as Ev<T>);
const upFrames = (
  h: Harness,
  t: string,
  pred: (f: Record<string, unknown>) => boolean = () => true,
) =>
  h.proxy.seen
    .filter((f) => f.dir === 'up')
    .map(parseFrame)
    .filter((f) => f.t === t && pred(f));
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('resume and the fence (R2, R3, R7, R10, §1.5)', () => {
  it('R2/R7: a cut mid-stream resumes on the same epoch; only chunks above the watermark are re-sent; SHA-256 of the output matches', async () => {
    h = await makeHarness();
    await h.online();
    const src = join(h.workspace, 'src.bin');
    let chunksUp = 0;
    let cutDone = false;
    h.proxy.setRule((dir, text, pair) => {
      // From the 12th chunk on, the first connection is dead: nothing more crosses it.
      if (pair === 0 && cutDone) return 'drop';
      if (dir === 'up' && text.startsWith('{"t":"chunk"') && ++chunksUp === 12) {
        cutDone = true;
        setImmediate(() => h.proxy.cut());
        return 'drop';
      }
      return 'pass';
    });
    const since = h.events.length;
    const d = h.lane.dispatch(h.deviceId, {
      kind: 'execStream',
      args: { command: `head -c 3000000 /dev/urandom > ${src}; cat ${src}` },
    });
    const r = await collect(d);
    expect(r.outcome).toEqual({ ok: true, kind: 'exec', exitCode: 0 });
    expect(sha(stdoutBytes(r.items))).toBe(sha(readFileSync(src)));
    const resumed = await h.event(
      is('active', (e) => e.kept.includes(d.instructionId)),
      since,
    );
    expect(resumed.killed).toEqual([]);
    // The helloAck of the second connection gives the watermark; the first chunk re-sent is just above it.
    const ack = h.proxy.seen.find(
      (f) => f.dir === 'down' && f.pair === 1 && parseFrame(f).t === 'helloAck',
    ) as SeenFrame;
    const watermark = (parseFrame(ack).chunkWatermarks as Record<string, number>)[
      d.instructionId
    ] as number;
    const resent = h.proxy.seen
      .filter((f) => f.dir === 'up' && f.pair === 1 && f.text.startsWith('{"t":"chunk"'))
      .map(parseFrame)
      .filter((f) => f.instructionId === d.instructionId)
      .map((f) => f.streamSeq as number);
    expect(watermark).toBeGreaterThanOrEqual(-1);
    expect(resent[0]).toBe(watermark + 1);
    expect(resent.every((s, i) => s === watermark + 1 + i)).toBe(true);
    expect(
      upFrames(h, 'chunk', (f) => f.instructionId === d.instructionId && f.gen === resumed.gen)
        .length,
    ).toBe(resent.length);
  });

  it('§1.5/R10: an instruction missing from pendingInstructions has its process group dead before generationAck', async () => {
    h = await makeHarness({ reconnectGraceMs: 150 });
    await h.online();
    const d = h.lane.dispatch(h.deviceId, {
      kind: 'execStream',
      args: { command: 'sleep 999 & echo $$; wait' },
    });
    let text = '';
    const pgid = await new Promise<number>((resolve) =>
      d.output.onChunk((i) => {
        if (i.kind === 'stdout') text += i.data.toString();
        if (text.includes('\n')) resolve(Number(text.trim()));
      }),
    );
    expect(isGroupGone(pgid)).toBe(false);
    // Cut and keep the executor out until the lane's reconnect grace has written the work off (R4).
    h.proxy.refuseUpgrades(true);
    h.proxy.cut();
    expect(await d.outcome).toMatchObject({ ok: false, errorCode: 'outcome_unknown' });
    let goneAtGenerationAck: boolean | null = null;
    h.proxy.setRule((dir, t) => {
      if (dir === 'up' && t.includes('"t":"generationAck"'))
        goneAtGenerationAck = isGroupGone(pgid);
      return 'pass';
    });
    const since = h.events.length;
    h.proxy.refuseUpgrades(false);
    const active = await h.event(is('active'), since);
    await h.proxy.waitFrame(
      (f) =>
        f.dir === 'up' &&
        f.text.includes('"t":"generationAck"') &&
        f.text.includes(`"${active.gen}"`),
    );
    expect(active.killed).toEqual([d.instructionId]);
    expect(goneAtGenerationAck).toBe(true);
    // And nothing is ever sent for it afterwards (§1.5).
    expect(upFrames(h, 'result', (f) => f.instructionId === d.instructionId)).toEqual([]);
  });

  it('R5/R6: a lost result is re-sent after reconnect with the new gen and the same deviceSeq', async () => {
    h = await makeHarness();
    await h.online();
    let dropped = false;
    h.proxy.setRule((dir, text) => {
      if (dir === 'up' && !dropped && text.includes('"t":"result"')) {
        dropped = true;
        setImmediate(() => h.proxy.cut());
        return 'drop';
      }
      return 'pass';
    });
    const d = h.lane.dispatch(h.deviceId, { kind: 'exec', args: { command: 'echo once' } });
    const r = await collect(d);
    expect(r.outcome).toEqual({ ok: true, kind: 'exec', exitCode: 0 });
    expect(stdoutOf(r.items)).toBe('once\n');
    const results = h.proxy.seen
      .filter((f) => f.dir === 'up' && f.text.includes('"t":"result"'))
      .map(parseFrame);
    expect(results).toHaveLength(2);
    expect(results[1]?.deviceSeq).toBe(results[0]?.deviceSeq);
    expect(results[1]?.gen).not.toBe(results[0]?.gen);
  });

  it('§1.5/§5.4: a result whose resultAck was lost is not re-sent once the server no longer lists it', async () => {
    h = await makeHarness();
    await h.online();
    h.proxy.setRule((dir, text) =>
      dir === 'down' && text.includes('"t":"resultAck"') ? 'drop' : 'pass',
    );
    const d = h.lane.dispatch(h.deviceId, { kind: 'exists', args: { path: h.workspace } });
    expect(await d.outcome).toEqual({ ok: true, kind: 'stat', existsValue: true });
    const since = h.events.length;
    h.proxy.cut();
    await h.event(is('active'), since);
    expect(upFrames(h, 'result', (f) => f.instructionId === d.instructionId)).toHaveLength(1);
    expect(h.logs.join('')).toContain('"event":"outbox.discard"');
  });

  it('X6: an instruction id delivered twice runs once', async () => {
    h = await makeHarness();
    await h.online();
    const ledger = join(h.workspace, 'ledger');
    h.proxy.setRule((dir, text) =>
      dir === 'down' && text.includes('"t":"instruction"') ? 'dup' : 'pass',
    );
    const d = h.lane.dispatch(h.deviceId, {
      kind: 'exec',
      args: { command: `echo ran >> ${ledger}` },
    });
    expect(await d.outcome).toEqual({ ok: true, kind: 'exec', exitCode: 0 });
    await h.event(is('duplicate', (e) => e.instructionId === d.instructionId));
    expect(readFileSync(ledger, 'utf8')).toBe('ran\n');
    expect(upFrames(h, 'result', (f) => f.instructionId === d.instructionId)).toHaveLength(1);
  });

  it('R9: a frame stamped with another gen is ignored', async () => {
    h = await makeHarness();
    await h.online();
    const d = h.lane.dispatch(h.deviceId, {
      kind: 'execStream',
      args: { command: 'echo go; sleep 0.3; echo end' },
    });
    await new Promise<void>((r) => d.output.onChunk(() => r()));
    h.proxy.inject(
      'down',
      JSON.stringify({ t: 'cancel', gen: '999999', instructionId: d.instructionId }),
    );
    const r = await collect(d);
    expect(r.outcome).toEqual({ ok: true, kind: 'exec', exitCode: 0 });
    expect(h.logs.join('')).toContain('frame.gen_mismatch_ignored');
  });
});

describe('liveness, bye and goodbye (R13, R14, R15, §1.6, §8)', () => {
  it('R14: heartbeats every heartbeatIntervalMs with increasing seq and the running ids as inflight', async () => {
    // Lane and executor on one manual clock: each beat is one interval moved by hand, so a busy
    // machine stalling the event loop cannot make 3 × H pass between two beats.
    const clock = makeManualTimers();
    h = await makeHarness({ heartbeatIntervalMs: 60, clock });
    await h.online({ clock });
    // Runs until the test is done with it (a file in the workspace), then ends by itself.
    const d = h.lane.dispatch(h.deviceId, {
      kind: 'exec',
      args: { command: 'until [ -e done ]; do sleep 0.02; done' },
    });
    const carries = (b: Record<string, unknown>) =>
      (b.inflight as string[]).includes(d.instructionId);
    // One interval at a time, each beat seen before the next is due. Until the instruction has
    // reached the executor a beat may go out without it; then every one carries it while it runs.
    for (let n = 1; n <= 4 || !carries(upFrames(h, 'heartbeat').at(-1)!); n++) {
      if (n > 50) throw new Error('no heartbeat carried the running instruction');
      clock.advance(60);
      await until(() => upFrames(h, 'heartbeat').length >= n, `heartbeat ${n}`);
    }
    writeFileSync(join(h.workspace, 'done'), '');
    expect((await collect(d)).outcome).toMatchObject({ ok: true, kind: 'exec', exitCode: 0 });
    const beats = upFrames(h, 'heartbeat');
    expect(beats.length).toBeGreaterThanOrEqual(4);
    beats.forEach((b, i) => expect(b.seq).toBe(i));
    expect(h.events.filter((e) => e.type === 'disconnected')).toEqual([]); // 3 × H never passed silently
  });

  it('R13 revoked: stop, delete the key, tell the user to re-enroll', async () => {
    h = await makeHarness();
    const ex = await h.online();
    h.lane.revoke(h.deviceId);
    const exit = await ex.done;
    expect(exit.reason).toBe('revoked');
    expect(exit.message).toMatch(/enroll again/);
    expect(existsSync(join(h.keyDir, KEY_FILE))).toBe(false);
    expect(existsSync(join(h.keyDir, RECORD_FILE))).toBe(false);
  });

  it('R13 superseded: stop (another instance is live) and kill in-flight work', async () => {
    h = await makeHarness();
    const ex = await h.online();
    const d = h.lane.dispatch(h.deviceId, {
      kind: 'execStream',
      args: { command: 'echo $$; sleep 999' },
    });
    const pgid = await new Promise<number>((r) =>
      d.output.onChunk((i) => i.kind === 'stdout' && r(Number(i.data.toString()))),
    );
    const loaded = loadKey(h.keyDir);
    if (!loaded || 'error' in loaded) throw new Error('no key');
    const rival = await connectTestDevice(
      h.lane.wsUrl,
      {
        deviceId: h.deviceId,
        privateKey: loaded.key,
        pubkeyB64: encodeBase64(rawEd25519PublicKey(loaded.key)),
      },
      { epoch: ex.epoch },
    );
    await rival.hello();
    const exit = await ex.done;
    expect(exit.reason).toBe('superseded');
    expect(isGroupGone(pgid)).toBe(true);
    rival.ws.terminate();
  });

  it('R13 draining: reconnect with backoff, not exit', async () => {
    h = await makeHarness();
    await h.online();
    const since = h.events.length;
    void h.lane.drain();
    await h.event(
      is('disconnected', (e) => e.end.kind === 'bye' && e.end.reason === 'draining'),
      since,
    );
    await h.event(
      is('connecting', (e) => e.attempt >= 1),
      since,
    );
    expect(h.events.slice(since).some((e) => e.type === 'stopping')).toBe(false);
  });

  it('R15: stop sends goodbye(user_stop), lets running work finish and deliver, then exits', async () => {
    h = await makeHarness();
    const ex = await h.online();
    const d = h.lane.dispatch(h.deviceId, {
      kind: 'exec',
      args: { command: 'sleep 0.3; echo finished' },
    });
    await h.event(is('instruction', (e) => e.instructionId === d.instructionId));
    const exit = ex.stop('user_stop');
    const bye = await h.proxy.waitFrame((f) => f.dir === 'up' && f.text.includes('"t":"goodbye"'));
    expect(parseFrame(bye)).toMatchObject({ reason: 'user_stop' });
    const r = await collect(d);
    expect(stdoutOf(r.items)).toBe('finished\n');
    expect(r.outcome).toEqual({ ok: true, kind: 'exec', exitCode: 0 });
    expect((await exit).reason).toBe('stopped');
  });

  it('R15: work still running when the shutdown grace ends is killed and failed explicitly', async () => {
    h = await makeHarness();
    const ex = await h.online({ shutdownGraceMs: 100 });
    const d = h.lane.dispatch(h.deviceId, {
      kind: 'execStream',
      args: { command: 'echo $$; sleep 999' },
    });
    const pgid = await new Promise<number>((r) =>
      d.output.onChunk((i) => i.kind === 'stdout' && r(Number(i.data.toString()))),
    );
    await ex.stop('shutdown');
    expect(await d.outcome).toMatchObject({ ok: false, errorCode: 'aborted' });
    expect(isGroupGone(pgid)).toBe(true);
  });

  it('§1.6: an instruction arriving after goodbye is failed explicitly, not dropped', async () => {
    h = await makeHarness();
    const ex = await h.online();
    const d = h.lane.dispatch(h.deviceId, { kind: 'exec', args: { command: 'sleep 0.4' } });
    await h.event(is('instruction', (e) => e.instructionId === d.instructionId));
    void ex.stop('shutdown');
    const bye = await h.proxy.waitFrame((f) => f.dir === 'up' && f.text.includes('"t":"goodbye"'));
    const gen = parseFrame(bye).gen as string;
    const late = 'ins_01J8ZQ4T9X7M3K5N6P8R0S2V4W';
    h.proxy.inject(
      'down',
      JSON.stringify({
        t: 'instruction',
        gen,
        instructionId: late,
        rootSessionId: 's',
        issuedSeq: 99,
        kind: 'exec',
        args: { command: 'touch never' },
        timeoutMs: 1000,
      }),
    );
    const f = await h.proxy.waitFrame((x) => x.dir === 'up' && x.text.includes(late));
    expect(parseFrame(f)).toMatchObject({
      t: 'result',
      outcome: { ok: false, errorCode: 'target_unavailable' },
    });
    expect(existsSync(join(h.workspace, 'never'))).toBe(false);
  });
});

describe('frames the lane never sends today (§3.2, §7, §8, X7)', () => {
  it('§8: ping is accepted and ignored', async () => {
    h = await makeHarness();
    await h.online();
    h.proxy.inject('down', '{"t":"ping"}');
    expect(
      await h.lane.dispatch(h.deviceId, { kind: 'exec', args: { command: 'true' } }).outcome,
    ).toEqual({ ok: true, kind: 'exec', exitCode: 0 });
  });

  it('§7: an undeclared kind that arrives anyway answers not_supported; an unknown one too', async () => {
    h = await makeHarness();
    await h.online();
    const gen = upFrames(h, 'generationAck')[0]?.gen as string;
    const ids = {
      writeFileGuarded: 'ins_01J8ZQ4T9X7M3K5N6P8R0S2V41',
      statBatch: 'ins_01J8ZQ4T9X7M3K5N6P8R0S2V42',
      formatDisk: 'ins_01J8ZQ4T9X7M3K5N6P8R0S2V43',
    };
    for (const [kind, id] of Object.entries(ids)) {
      h.proxy.inject(
        'down',
        JSON.stringify({
          t: 'instruction',
          gen,
          instructionId: id,
          rootSessionId: 's',
          issuedSeq: 1,
          kind,
          args: { path: '/x', paths: [] },
          timeoutMs: 1000,
        }),
      );
      const f = await h.proxy.waitFrame((x) => x.dir === 'up' && x.text.includes(id));
      expect(parseFrame(f)).toMatchObject({
        t: 'result',
        outcome: { ok: false, errorCode: 'not_supported' },
      });
    }
  });

  it('X7: a challenge nonce over 256 bytes is never signed; the socket is closed and the executor reconnects', async () => {
    h = await makeHarness();
    let forged = 0;
    h.proxy.setRule((dir, text) => {
      if (dir === 'down' && text.includes('"t":"challenge"') && forged === 0) {
        forged += 1;
        return {
          replace: JSON.stringify({ t: 'challenge', nonce: 'n'.repeat(257), protocolVersion: 1 }),
        };
      }
      return 'pass';
    });
    await h.online();
    expect(h.proxy.seen.filter((f) => f.pair === 0 && f.dir === 'up')).toEqual([]);
    expect(h.logs.join('')).toContain('handshake.nonce_refused');
  });

  it('§1.4: auth_failed backs off and retries; protocol_version_unsupported is terminal', async () => {
    h = await makeHarness();
    let tampered = 0;
    h.proxy.setRule((dir, text) => {
      if (dir === 'up' && text.includes('"t":"hello"') && tampered === 0) {
        tampered += 1;
        const f = JSON.parse(text) as { signatureB64: string };
        return {
          replace: JSON.stringify({ ...f, signatureB64: Buffer.alloc(64).toString('base64') }),
        };
      }
      return 'pass';
    });
    await h.online();
    expect(
      h.events.some(
        (e) => e.type === 'disconnected' && e.end.kind === 'reject' && e.end.code === 'auth_failed',
      ),
    ).toBe(true);
    await h.close();

    h = await makeHarness();
    h.proxy.setRule((dir, text) =>
      dir === 'up' && text.includes('"t":"hello"')
        ? { replace: JSON.stringify({ ...JSON.parse(text), protocolVersion: 99 }) }
        : 'pass',
    );
    const ex = await h.start();
    expect((await ex.done).reason).toBe('protocol_version_unsupported');
  });

  it('§1.4: already_connected is retried with backoff (never an exit) until the lease is free', async () => {
    h = await makeHarness({ allowTakeover: false });
    const loaded = loadKey(h.keyDir);
    if (!loaded || 'error' in loaded) throw new Error('no key');
    const rival = await connectTestDevice(h.lane.wsUrl, {
      deviceId: h.deviceId,
      privateKey: loaded.key,
      pubkeyB64: encodeBase64(rawEd25519PublicKey(loaded.key)),
    });
    await rival.handshake();
    const ex = await h.start();
    await h.event(
      is('disconnected', (e) => e.end.kind === 'reject' && e.end.code === 'already_connected'),
    );
    await h.event(is('connecting', (e) => e.attempt >= 1));
    rival.ws.close();
    const active = await h.event(is('active'));
    expect(active.gen).toMatch(/^\d+$/);
    expect(h.events.some((e) => e.type === 'stopping')).toBe(false);
    void ex;
  });

  it('§1.4: a helloReject draining is retried with backoff', async () => {
    h = await makeHarness();
    let rewritten = 0;
    h.proxy.setRule((dir, text) => {
      if (dir === 'down' && text.includes('"t":"helloAck"') && rewritten === 0) {
        rewritten += 1;
        return { replace: JSON.stringify({ t: 'helloReject', code: 'draining' }) };
      }
      return 'pass';
    });
    await h.online();
    expect(
      h.events.some(
        (e) => e.type === 'disconnected' && e.end.kind === 'reject' && e.end.code === 'draining',
      ),
    ).toBe(true);
  });

  it('§1.4: a helloReject revoked (revoked while offline) is terminal and deletes the key', async () => {
    h = await makeHarness();
    const ex = await h.online();
    h.proxy.refuseUpgrades(true);
    h.proxy.cut();
    h.lane.revoke(h.deviceId);
    h.proxy.refuseUpgrades(false);
    const exit = await ex.done;
    expect(exit.reason).toBe('revoked');
    expect(
      h.events.some(
        (e) => e.type === 'disconnected' && e.end.kind === 'reject' && e.end.code === 'revoked',
      ),
    ).toBe(true);
    expect(existsSync(join(h.keyDir, KEY_FILE))).toBe(false);
  });
});
