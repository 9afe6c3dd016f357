import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { enrollDevice, ENROLLMENT_INVALID_MESSAGE } from './enroll.ts';
import { KEY_FILE, RECORD_FILE } from './keystore.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { makeTmpDirs } from '../../testkit/tmp.ts';

const tmp = makeTmpDirs();
const closers: Array<() => void> = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
  tmp.cleanup();
});

const TOKEN = 'enroll-token-CANARY-7f3a';
const USER = 'user-cred-CANARY-91bc';
const DEVICE_ID = 'dev_01J8ZQ4T9X7M3K5N6P8R0S2V4W';

type Reply = { status: number; headers?: Record<string, string>; body?: unknown };
/** A scripted HTTP server on 127.0.0.1:0 that answers replies in order (the last one repeats). */
const scripted = async (replies: Reply[]) => {
  const requests: Array<{ auth: string | undefined; body: Record<string, unknown>; url: string }> =
    [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      requests.push({
        auth: req.headers.authorization,
        body: JSON.parse(text || '{}'),
        url: req.url ?? '',
      });
      const r = replies[Math.min(requests.length - 1, replies.length - 1)] as Reply;
      res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
      res.end(r.body === undefined ? '' : JSON.stringify(r.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
};

const run = (url: string, clock = makeManualTimers(), logs: string[] = []) => {
  const keyDir = join(tmp.make(), 'keys');
  const result = enrollDevice({
    server: url,
    token: TOKEN,
    userToken: USER,
    workspaceRoot: tmp.make('dsh-ws-'),
    keyDir,
    displayName: 'laptop',
    clock,
    log: (level, event, fields) => logs.push(JSON.stringify({ level, event, ...fields })),
  });
  return { keyDir, result, clock, logs };
};

/** Advances the manual clock each time the client waits, recording how long it asked to wait. */
const driveWaits = async (clock: ReturnType<typeof makeManualTimers>, done: Promise<unknown>) => {
  const waits: number[] = [];
  let finished = false;
  void done.then(() => (finished = true));
  while (!finished) {
    const p = clock.delays();
    if (p.length > 0) {
      waits.push(Math.min(...p));
      clock.advance(Math.min(...p));
    }
    await new Promise((r) => setImmediate(r));
  }
  return waits;
};

describe('enrollment client (§1.1)', () => {
  it('§1.1: 200 stores deviceId next to the key; the request carries the raw 32-byte pubkey and the bearer credential', async () => {
    const s = await scripted([{ status: 200, body: { deviceId: DEVICE_ID } }]);
    const { keyDir, result, logs } = run(s.url);
    expect(await result).toMatchObject({ ok: true, deviceId: DEVICE_ID, attempts: 1 });
    const [req] = s.requests;
    expect(req?.url).toBe('/v1/devices/enroll');
    expect(req?.auth).toBe(`Bearer ${USER}`);
    expect(Object.keys(req?.body ?? {}).sort()).toEqual([
      'displayName',
      'platformArch',
      'platformOs',
      'pubkey',
      'token',
      'workspaceRoot',
    ]);
    expect(Buffer.from(req?.body.pubkey as string, 'base64')).toHaveLength(32);
    const record = JSON.parse(readFileSync(join(keyDir, RECORD_FILE), 'utf8'));
    expect(record).toMatchObject({
      deviceId: DEVICE_ID,
      server: s.url,
      publicKeyB64: req?.body.pubkey,
    });
    expect(statSync(join(keyDir, KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(keyDir).mode & 0o777).toBe(0o700);
    // §6.3: the token and the credential are stored nowhere and logged nowhere.
    for (const name of readdirSync(keyDir, { recursive: true }) as string[]) {
      const p = join(keyDir, name);
      if (statSync(p).isFile()) expect(readFileSync(p, 'utf8')).not.toMatch(/CANARY/);
    }
    expect(logs.join('\n')).not.toMatch(/CANARY/);
  });

  it('§1.1: 429 waits exactly retry-after, then retries the same token with the same key', async () => {
    const s = await scripted([
      {
        status: 429,
        headers: { 'retry-after': '7' },
        body: { errorCode: 'limit.rate_exceeded', message: 'slow down' },
      },
      {
        status: 429,
        headers: { 'retry-after': '0' },
        body: { errorCode: 'limit.rate_exceeded', message: 'slow down' },
      },
      { status: 200, body: { deviceId: DEVICE_ID } },
    ]);
    const { result, clock } = run(s.url);
    const waits = await driveWaits(clock, result);
    expect(await result).toMatchObject({ ok: true, attempts: 3 });
    expect(waits).toEqual([7000, 1000]); // retry-after exactly; never faster than once a second
    expect(new Set(s.requests.map((r) => JSON.stringify(r.body))).size).toBe(1);
  });

  it('§1.1: a 429 that never clears stops after 10 attempts with a clear message', async () => {
    const s = await scripted([{ status: 429, headers: { 'retry-after': '1' }, body: {} }]);
    const { result, clock } = run(s.url);
    await driveWaits(clock, result);
    const r = await result;
    expect(r).toMatchObject({ ok: false, code: 'rate_limited', attempts: 10 });
    expect(s.requests).toHaveLength(10);
  });

  it('§1.1: 403 device.enrollment_invalid gets the single combined explanation and no retry', async () => {
    const s = await scripted([
      { status: 403, body: { errorCode: 'device.enrollment_invalid', message: 'refused' } },
    ]);
    const r = await run(s.url).result;
    expect(r).toEqual({
      ok: false,
      code: 'enrollment_invalid',
      message: ENROLLMENT_INVALID_MESSAGE,
      attempts: 1,
    });
    expect(ENROLLMENT_INVALID_MESSAGE).toMatch(/expired.*another device.*different account/);
  });

  it('§1.1: 400 names the field, 403 auth.forbidden and 501 get their own clear messages', async () => {
    const bad = await scripted([
      {
        status: 400,
        body: {
          errorCode: 'request.field_invalid',
          message: 'workspaceRoot is longer than 1024 bytes',
        },
      },
    ]);
    expect(await run(bad.url).result).toMatchObject({
      ok: false,
      code: 'bad_request',
      message: expect.stringContaining('workspaceRoot'),
    });
    const forbidden = await scripted([
      { status: 403, body: { errorCode: 'auth.forbidden', message: 'no' } },
    ]);
    expect(await run(forbidden.url).result).toMatchObject({
      ok: false,
      code: 'forbidden',
      message: expect.stringContaining('--user-token'),
    });
    const off = await scripted([
      { status: 501, body: { errorCode: 'capability.device_lane_required', message: 'off' } },
    ]);
    expect(await run(off.url).result).toMatchObject({
      ok: false,
      code: 'lane_off',
      message: expect.stringContaining('device lane'),
    });
  });

  it('X1: plain http to a non-loopback server is refused before any request', async () => {
    const r = await run('http://lane.example:80').result;
    expect(r).toMatchObject({ ok: false, code: 'insecure_server_url' });
  });

  it('an interrupted enrollment is retried with the same key (the replay rule), never a new one', async () => {
    const s = await scripted([
      { status: 500, body: {} },
      { status: 200, body: { deviceId: DEVICE_ID } },
    ]);
    const keyDir = join(tmp.make(), 'keys');
    const clock = makeManualTimers();
    const opts = {
      server: s.url,
      token: TOKEN,
      userToken: USER,
      workspaceRoot: tmp.make(),
      keyDir,
      clock,
    };
    const first = enrollDevice(opts);
    await driveWaits(clock, first);
    expect(await first).toMatchObject({ ok: true });
    expect(s.requests[0]?.body.pubkey).toBe(s.requests[1]?.body.pubkey);
    expect(await enrollDevice(opts)).toMatchObject({ ok: false, code: 'already_enrolled' });
  });
});
