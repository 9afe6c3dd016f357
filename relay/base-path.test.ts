// P1: the relay's WebSocket, /healthz and /vapid under one base path (--path / RELAY_PATH), so
// one host name and certificate serve the app at / and the relay at /relay.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from './config.ts';
import { makeRouter, parseBasePath } from './base-path.ts';
import { startRelay } from './server.ts';
import { newRoom, startFixture, type Fixture } from './test-support/relay-fixture.ts';
import { connectClient, expectUpgradeRefused } from './test-support/ws-client.ts';

describe('P1: the base path setting', () => {
  it.each([
    ['/', '/'],
    ['/relay', '/relay'],
    ['/relay/', '/relay'],
    ['/a/b-c_d.e~f', '/a/b-c_d.e~f'],
  ])('%s is accepted as %s', (raw, value) => {
    expect(parseBasePath(raw)).toEqual({ ok: true, value });
  });
  it.each([
    ['relay'],
    [''],
    ['/relay?x'],
    ['/re lay'],
    ['//relay'],
    ['/a//b'],
    ['/../x'],
    ['/%2e'],
  ])('%j is refused with a message naming the rule', (raw) => {
    const r = parseBasePath(raw);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toContain('path like "/relay"');
  });
  it('--path wins over RELAY_PATH, which wins over the default "/"', () => {
    expect(parseSettings([], {})).toMatchObject({ settings: { path: '/' } });
    expect(parseSettings([], { RELAY_PATH: '/r/' })).toMatchObject({ settings: { path: '/r' } });
    expect(parseSettings(['--path', '/relay'], { RELAY_PATH: '/r' })).toMatchObject({
      settings: { path: '/relay' },
    });
    const bad = parseSettings(['--path=relay'], {});
    expect(bad.ok === false && bad.message).toMatch(/^--path: must be "\/" or a path/);
  });
  it('routes: the socket at the base (with or without its slash), the rest below it, queries ignored', () => {
    const at = makeRouter('/relay');
    expect(['/relay', '/relay/', '/relay?x=1'].map(at)).toEqual(['socket', 'socket', 'socket']);
    expect(['/relay/healthz', '/relay/vapid?v', '/relay/metrics'].map(at)).toEqual([
      'healthz',
      'vapid',
      'metrics',
    ]);
    expect(['/', '/healthz', '/vapid', '/relayx', '/relay/x', undefined].map(at)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    const root = makeRouter('/');
    expect(['/', '/healthz', '/vapid', '//'].map(root)).toEqual([
      'socket',
      'healthz',
      'vapid',
      null,
    ]);
  });
});

describe('P1: a relay started with --path /relay', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture({ path: '/relay' });
  });
  afterAll(async () => {
    await fx.stop();
  });
  const get = (target: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: fx.relay.port, path: target }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });
  const origin = () => `ws://127.0.0.1:${fx.relay.port}`;

  it('reports its URL with the path', () => {
    expect(fx.relay.url).toBe(`${origin()}/relay`);
  });
  it('answers /relay/healthz and /relay/vapid', async () => {
    expect(await get('/relay/healthz')).toEqual({ status: 200, body: '{"ok":true}' });
    const vapid = await get('/relay/vapid');
    expect(JSON.parse(vapid.body)).toEqual({ publicKey: fx.relay.vapidPublicKey });
  });
  it.each([['/healthz'], ['/vapid'], ['/relay/nope'], ['/'], ['/relay']])(
    'GET %s → 404',
    async (target) => {
      expect((await get(target)).status).toBe(404);
    },
  );
  it('accepts the WebSocket at /relay and /relay/, forwards in a room across both', async () => {
    const room = newRoom();
    const phone = await connectClient(`${origin()}/relay`);
    const machine = await connectClient(`${origin()}/relay/`);
    try {
      await phone.hello(room, 'phone');
      await machine.hello(room, 'machine');
      expect(await phone.nextFrame('presence')).toMatchObject({ role: 'machine', online: true });
      machine.send({ kind: 'msg', room, payload: 'QUJD' });
      expect(await phone.nextFrame('msg')).toEqual({ kind: 'msg', room, payload: 'QUJD' });
    } finally {
      await Promise.all([phone.close(), machine.close()]);
    }
  });
  it.each([['/'], ['/other'], ['/relay/x']])(
    'refuses an upgrade on %s with 404',
    async (target) => {
      expect(await expectUpgradeRefused(`${origin()}${target}`)).toBe(404);
    },
  );
});

describe('P1: a base path that is not one', () => {
  it('startRelay refuses it before listening', async () => {
    const dataDir = path.join(os.tmpdir(), `relay-never-made-${process.pid}`);
    await expect(startRelay({ path: 'relay', port: 0, dataDir })).rejects.toThrow(
      /^path must be "\/"/,
    );
    expect(fs.existsSync(dataDir)).toBe(false);
  });
});
