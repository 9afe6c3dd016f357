import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEVICE_HTTP_PATHS } from '../wire/index.ts';
import { ALICE, BOB, startTestLane, type TestLane } from '../test-support/lane-fixture.ts';
import { makeKeypair, postJson } from '../test-support/test-device.ts';
import { ENROLLMENT_INVALID_BODY } from './http-plane.ts';

let t: TestLane | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

const issue = async (lane: TestLane, bearer = ALICE) => {
  const r = await postJson(lane.lane.url + DEVICE_HTTP_PATHS.enrollTokens, '', bearer);
  expect(r.status).toBe(200);
  return (r.json as { token: string }).token;
};
const body = (token: string, pubkey: string, extra: object = {}) => ({
  token,
  pubkey,
  platformOs: 'linux',
  workspaceRoot: '/home/me/work',
  ...extra,
});
const enroll = (lane: TestLane, b: unknown, bearer: string | undefined = ALICE) =>
  postJson(lane.lane.url + DEVICE_HTTP_PATHS.enroll, b, bearer);

describe('GET /v1/capabilities', () => {
  it('carries deviceExecutor { enabled, protocolVersion, maxInflightPerDevice, wsPath, management }', async () => {
    t = await startTestLane({ maxInflight: 2 });
    const res = await fetch(t.lane.url + '/v1/capabilities');
    expect(await res.json()).toEqual({
      deviceExecutor: {
        enabled: true,
        protocolVersion: 1,
        maxInflightPerDevice: 2,
        wsPath: '/v1/device/ws',
        management: {
          enrollTokensPath: '/v1/devices/enroll-tokens',
          enrollPath: '/v1/devices/enroll',
        },
      },
    });
  });

  it('deviceExecutor is false and both enrollment endpoints answer 501 when the lane is off', async () => {
    t = await startTestLane({ enabled: false });
    const res = await fetch(t.lane.url + '/v1/capabilities');
    expect(await res.json()).toEqual({ deviceExecutor: false });
    for (const path of [DEVICE_HTTP_PATHS.enrollTokens, DEVICE_HTTP_PATHS.enroll]) {
      const r = await postJson(t.lane.url + path, {}, ALICE);
      expect(r.status).toBe(501);
      expect((r.json as { errorCode: string }).errorCode).toBe('capability.device_lane_required');
    }
  });
});

describe('§1.1 POST /v1/devices/enroll-tokens', () => {
  it('issues { token, expiresAt, ttlSec: 900 } to the caller; empty body and {} both accepted', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    t = await startTestLane({ now: () => clock });
    for (const b of ['', '{}']) {
      const r = await postJson(t.lane.url + DEVICE_HTTP_PATHS.enrollTokens, b, ALICE);
      expect(r.status).toBe(200);
      const j = r.json as { token: string; expiresAt: string; ttlSec: number };
      expect(Object.keys(j).sort()).toEqual(['expiresAt', 'token', 'ttlSec']);
      expect(j.ttlSec).toBe(900);
      expect(j.expiresAt).toBe(new Date(clock + 900_000).toISOString());
      clock += 1;
    }
  });

  it('the body is a closed shape with zero keys: any key is a 400 naming it', async () => {
    t = await startTestLane();
    const r = await postJson(t.lane.url + DEVICE_HTTP_PATHS.enrollTokens, { user: 'bob' }, ALICE);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ errorCode: 'request.body_shape' });
    expect((r.json as { message: string }).message).toMatch(/"user"/);
    const bad = await postJson(t.lane.url + DEVICE_HTTP_PATHS.enrollTokens, '{', ALICE);
    expect(bad.json).toMatchObject({ errorCode: 'request.invalid_json' });
  });

  it('tokens are stored only as SHA-256 digests (the plaintext is nowhere in the data dir)', async () => {
    t = await startTestLane();
    const token = await issue(t);
    const kp = makeKeypair();
    expect((await enroll(t, body(token, kp.pubkeyB64))).status).toBe(200);
    await t.lane.close();
    for (const f of readdirSync(t.dataDir)) {
      const bytes = readFileSync(join(t.dataDir, f));
      expect(bytes.includes(Buffer.from(token)), f).toBe(false);
    }
  });
});

describe('§1.1 POST /v1/devices/enroll, case by case', () => {
  it('token valid, first registration → 200, body exactly { deviceId: "dev_…" }', async () => {
    t = await startTestLane();
    const kp = makeKeypair();
    const r = await enroll(
      t,
      body(await issue(t), kp.pubkeyB64, { platformArch: 'arm64', displayName: 'laptop' }),
    );
    expect(r.status).toBe(200);
    expect(Object.keys(r.json as object)).toEqual(['deviceId']);
    expect((r.json as { deviceId: string }).deviceId).toMatch(/^dev_[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(t.lane.devices()).toMatchObject([
      { owner: 'alice', pubkey: kp.pubkeyB64, platformArch: 'arm64', displayName: 'laptop' },
    ]);
  });

  it('same token and the same public key again → 200, same deviceId, no second device row', async () => {
    t = await startTestLane();
    const kp = makeKeypair();
    const token = await issue(t);
    const a = await enroll(t, body(token, kp.pubkeyB64));
    const b = await enroll(t, body(token, kp.pubkeyB64));
    expect(b.status).toBe(200);
    expect(b.text).toBe(a.text);
    expect(t.lane.devices()).toHaveLength(1);
  });

  it('the four refusals are byte-identical 403 device.enrollment_invalid; the reason is only audited', async () => {
    let clock = 1_000_000;
    t = await startTestLane({ now: () => clock });
    const kp = makeKeypair();
    const answers: { status: number; text: string }[] = [];
    // does not exist
    answers.push(await enroll(t, body('no-such-token', kp.pubkeyB64)));
    // expired
    const old = await issue(t);
    clock += 900_000;
    answers.push(await enroll(t, body(old, kp.pubkeyB64)));
    // issued to a different caller identity
    answers.push(await enroll(t, body(await issue(t, BOB), kp.pubkeyB64), ALICE));
    // already used with a different public key
    const used = await issue(t);
    expect((await enroll(t, body(used, kp.pubkeyB64))).status).toBe(200);
    answers.push(await enroll(t, body(used, makeKeypair().pubkeyB64)));
    for (const a of answers) {
      expect(a.status).toBe(403);
      expect(a.text).toBe(ENROLLMENT_INVALID_BODY);
    }
    expect(JSON.parse(ENROLLMENT_INVALID_BODY).errorCode).toBe('device.enrollment_invalid');
    const reasons = t.events.filter((e) => e.event === 'enroll_refused').map((e) => e.reason);
    expect(reasons).toEqual(['token_unknown', 'token_expired', 'token_wrong_owner', 'token_reuse']);
    expect(t.lane.devices()).toHaveLength(1);
  });

  it('400 request.invalid_json / request.body_shape: not JSON, not an object, unknown key, missing key (named)', async () => {
    t = await startTestLane();
    const kp = makeKeypair();
    const cases: [unknown, string, RegExp][] = [
      ['{nope', 'request.invalid_json', /JSON/],
      ['[1,2]', 'request.body_shape', /object/],
      [{ ...body('x', kp.pubkeyB64), deviceId: 'dev_x' }, 'request.body_shape', /"deviceId"/],
      [
        { token: 'x', pubkey: kp.pubkeyB64, platformOs: 'linux' },
        'request.body_shape',
        /"workspaceRoot"/,
      ],
    ];
    for (const [b, code, msg] of cases) {
      const r = await enroll(t, b);
      expect(r.status, String(code)).toBe(400);
      expect(r.json).toMatchObject({ errorCode: code });
      expect((r.json as { message: string }).message).toMatch(msg);
    }
  });

  it('400 request.field_invalid: wrong type, too long, platformOs outside the closed set (named)', async () => {
    t = await startTestLane({ enrollRateLimit: { requests: 100, windowMs: 60_000 } });
    const kp = makeKeypair();
    const cases: [object, string][] = [
      [{ token: '' }, 'token'],
      [{ token: 'x'.repeat(257) }, 'token'],
      [{ token: 7 }, 'token'],
      [{ pubkey: kp.pubkeyB64 + ' ' }, 'pubkey'],
      [{ pubkey: kp.pubkeyB64.slice(0, 43) }, 'pubkey'],
      [{ pubkey: Buffer.alloc(33).toString('base64') }, 'pubkey'],
      [{ pubkey: '' }, 'pubkey'],
      [{ platformOs: 'win32' }, 'platformOs'],
      [{ platformOs: 'Linux' }, 'platformOs'],
      [{ platformArch: 'x'.repeat(33) }, 'platformArch'],
      [{ displayName: 'é'.repeat(128) }, 'displayName'],
      [{ workspaceRoot: '' }, 'workspaceRoot'],
      [{ workspaceRoot: '/'.repeat(1025) }, 'workspaceRoot'],
    ];
    for (const [over, field] of cases) {
      const r = await enroll(t, { ...body('tok', kp.pubkeyB64), ...over });
      expect(r.status, JSON.stringify(over).slice(0, 60)).toBe(400);
      expect(r.json).toMatchObject({ errorCode: 'request.field_invalid' });
      expect((r.json as { message: string }).message.startsWith(field)).toBe(true);
    }
    // the limits themselves are accepted
    const ok = await enroll(
      t,
      body(await issue(t), kp.pubkeyB64, {
        platformArch: 'x'.repeat(32),
        displayName: 'é'.repeat(127),
      }),
    );
    expect(ok.status).toBe(200);
  });

  it('403 auth.forbidden without a verified identity', async () => {
    t = await startTestLane();
    for (const bearer of [undefined, 'not-a-user']) {
      for (const path of [DEVICE_HTTP_PATHS.enrollTokens, DEVICE_HTTP_PATHS.enroll]) {
        const r = await postJson(t.lane.url + path, {}, bearer);
        expect(r.status).toBe(403);
        expect(r.json).toMatchObject({ errorCode: 'auth.forbidden' });
      }
    }
  });

  it('revocation is terminal: re-enrolling yields a new deviceId; the old one stays revoked', async () => {
    t = await startTestLane();
    const kp = makeKeypair();
    const first = await enroll(t, body(await issue(t), kp.pubkeyB64));
    const id1 = (first.json as { deviceId: string }).deviceId;
    expect(t.lane.revoke(id1)).toBe(true);
    expect(t.lane.revoke(id1)).toBe(false);
    const again = await enroll(t, body(await issue(t), kp.pubkeyB64));
    const id2 = (again.json as { deviceId: string }).deviceId;
    expect(id2).not.toBe(id1);
    const byId = Object.fromEntries(t.lane.devices().map((d) => [d.deviceId, d.revokedAt]));
    expect(byId[id1]).not.toBeNull();
    expect(byId[id2]).toBeNull();
  });
});

describe('§1.1 rate limits (10 per 60 s per identity, fixed window, separate buckets)', () => {
  it('the 11th request in a window is 429 limit.rate_exceeded with a whole-second retry-after ≥ 1', async () => {
    let clock = 5_000_000;
    t = await startTestLane({ now: () => clock });
    for (let i = 0; i < 10; i++) await issue(t);
    clock += 59_500;
    const r = await postJson(t.lane.url + DEVICE_HTTP_PATHS.enrollTokens, '', ALICE);
    expect(r.status).toBe(429);
    expect(r.json).toMatchObject({ errorCode: 'limit.rate_exceeded' });
    expect(r.headers.get('retry-after')).toBe('1');
    clock -= 59_000;
    const r2 = await postJson(t.lane.url + DEVICE_HTTP_PATHS.enrollTokens, '', ALICE);
    expect(r2.headers.get('retry-after')).toBe('60');
    // per identity: bob is unaffected
    await issue(t, BOB);
    // the window is fixed: it reopens 60 s after it began
    clock += 59_500;
    await issue(t);
  });

  it('issuing tokens never eats the registration budget (separate buckets)', async () => {
    const clock = 7_000_000;
    t = await startTestLane({ now: () => clock });
    const token = await issue(t);
    for (let i = 0; i < 9; i++) await issue(t);
    expect((await postJson(t.lane.url + DEVICE_HTTP_PATHS.enrollTokens, '', ALICE)).status).toBe(
      429,
    );
    expect((await enroll(t, body(token, makeKeypair().pubkeyB64))).status).toBe(200);
  });

  it('a 429 does not consume the token: the same token and key succeed after retry-after', async () => {
    let clock = 9_000_000;
    t = await startTestLane({ now: () => clock });
    const token = await issue(t);
    const kp = makeKeypair();
    for (let i = 0; i < 10; i++)
      expect((await enroll(t, body('wrong-' + i, kp.pubkeyB64))).status).toBe(403);
    const limited = await enroll(t, body(token, kp.pubkeyB64));
    expect(limited.status).toBe(429);
    clock += Number(limited.headers.get('retry-after')) * 1000;
    const r = await enroll(t, body(token, kp.pubkeyB64));
    expect(r.status).toBe(200);
  });

  it('a limiter that is unavailable refuses with 429 (fails closed)', async () => {
    t = await startTestLane({
      rateLimiter: {
        take() {
          throw new Error('limiter store down');
        },
      },
    });
    const r = await postJson(t.lane.url + DEVICE_HTTP_PATHS.enrollTokens, '', ALICE);
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('the registry survives a restart of the hosting process', () => {
  it('a device enrolled before close() can hello after a new lane opens the same data dir', async () => {
    t = await startTestLane();
    const id = await t.enroll();
    const dataDir = t.dataDir;
    await t.lane.close();
    const again = await startTestLane({ dataDir });
    try {
      expect(again.lane.devices().map((d) => d.deviceId)).toEqual([id.deviceId]);
      const dev = await again.connect(id);
      const ack = await dev.hello();
      expect(ack.t).toBe('helloAck');
      // the generation keeps counting across restarts
      expect(ack.t === 'helloAck' && ack.gen).toBe('1');
    } finally {
      await again.lane.close();
    }
  });
});
