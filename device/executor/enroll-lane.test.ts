// The enrollment client and `serve`'s discovery against the real lane's HTTP plane.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ALICE, startTestLane, type TestLane } from '../test-support/lane-fixture.ts';
import { enrollDevice, ENROLLMENT_INVALID_MESSAGE } from './enroll.ts';
import { startExecutor } from './executor.ts';
import { ensureKeyDir, generateDeviceKey, saveKey, saveRecord } from './keystore.ts';
import { makeManualTimers, type ManualTimers } from '../../testkit/manual-clock.ts';
import { makeTmpDirs } from '../../testkit/tmp.ts';

const tmp = makeTmpDirs();
let t: TestLane | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
  tmp.cleanup();
});

const enroll = (
  token: string,
  clock?: ManualTimers,
  over: { workspaceRoot?: string; keyDir?: string } = {},
) =>
  enrollDevice({
    server: (t as TestLane).lane.url,
    token,
    userToken: ALICE,
    workspaceRoot: over.workspaceRoot ?? tmp.make('dsh-ws-'),
    keyDir: over.keyDir ?? join(tmp.make(), 'keys'),
    ...(clock ? { clock } : {}),
  });

describe('enrollment against the lane (§1.1)', () => {
  it('§1.1: the four refusals read as one: a reused token (other key) and an unknown token give the combined explanation', async () => {
    t = await startTestLane();
    const { token } = t.lane.issueEnrollmentToken('alice');
    expect(await enroll(token)).toMatchObject({ ok: true });
    expect(await enroll(token)).toEqual({
      ok: false,
      code: 'enrollment_invalid',
      message: ENROLLMENT_INVALID_MESSAGE,
      attempts: 1,
    });
    expect(await enroll('no-such-token')).toMatchObject({
      ok: false,
      code: 'enrollment_invalid',
      message: ENROLLMENT_INVALID_MESSAGE,
    });
  });

  it('§1.1: a 400 names the field the lane refused', async () => {
    t = await startTestLane();
    const { token } = t.lane.issueEnrollmentToken('alice');
    const r = await enroll(token, undefined, { workspaceRoot: `/${'w'.repeat(1100)}` });
    expect(r).toMatchObject({
      ok: false,
      code: 'bad_request',
      message: expect.stringContaining('workspaceRoot'),
    });
  });

  it('§1.1: over the rate budget → waits retry-after exactly, then the same token still works (not consumed)', async () => {
    const clock = makeManualTimers();
    t = await startTestLane({
      now: () => clock.now(),
      enrollRateLimit: { requests: 1, windowMs: 5000 },
    });
    expect(await enroll('burns-the-budget')).toMatchObject({ code: 'enrollment_invalid' });
    const { token } = t.lane.issueEnrollmentToken('alice');
    const result = enroll(token, clock);
    const waits: number[] = [];
    let done = false;
    void result.then(() => (done = true));
    while (!done) {
      const p = clock.delays();
      if (p.length > 0) {
        waits.push(Math.min(...p));
        clock.advance(Math.min(...p));
      }
      await new Promise((r) => setImmediate(r));
    }
    expect(await result).toMatchObject({ ok: true, attempts: 2 });
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(1000);
    expect((waits[0] as number) % 1000).toBe(0);
    const limited = t.events.filter((e) => e.event === 'enroll_rate_limited');
    expect(limited).toHaveLength(1);
  });

  it('§1.1: a lane that is off answers 501 → lane_off; serve refuses to start against it', async () => {
    t = await startTestLane({ enabled: false });
    expect(await enroll('any')).toMatchObject({ ok: false, code: 'lane_off' });
    const keyDir = join(tmp.make(), 'keys');
    ensureKeyDir(keyDir);
    saveKey(keyDir, generateDeviceKey());
    saveRecord(keyDir, {
      deviceId: 'dev_01J8ZQ4T9X7M3K5N6P8R0S2V4W',
      server: t.lane.url,
      workspaceRoot: tmp.make(),
      publicKeyB64: '',
      enrolledAt: '',
    });
    await expect(startExecutor({ keyDir })).rejects.toMatchObject({ code: 'lane_off' });
    // The lock was released on the way out: a later start gets the same answer, not "locked".
    await expect(startExecutor({ keyDir })).rejects.toMatchObject({ code: 'lane_off' });
  });
});
