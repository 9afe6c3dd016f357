// Relay HTTP (spec): GET /healthz, GET /vapid with CORS, 404 for anything else, upgrades only on /.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectUpgradeRefused } from './test-support/ws-client.ts';
import { startFixture, type Fixture } from './test-support/relay-fixture.ts';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => {
  await fx.stop();
});

function get(
  path: string,
  method = 'GET',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: fx.relay.port, path, method }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Relay HTTP', () => {
  it('GET /healthz → 200 {"ok":true}', async () => {
    const r = await get('/healthz');
    expect([r.status, r.body, r.headers['content-type']]).toEqual([
      200,
      '{"ok":true}',
      'application/json',
    ]);
  });
  it('GET /vapid → the public key, readable from another origin', async () => {
    const r = await get('/vapid');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ publicKey: fx.relay.vapidPublicKey });
    expect(fx.relay.vapidPublicKey).toMatch(/^[A-Za-z0-9_-]{87}$/); // 65-byte P-256 point
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });
  it.each([['/'], ['/nope'], ['/healthz/x'], ['/vapid.json']])('GET %s → 404', async (path) => {
    expect((await get(path)).status).toBe(404);
  });
  it('POST /healthz → 404', async () => {
    expect((await get('/healthz', 'POST')).status).toBe(404);
  });
  it('a WebSocket upgrade on another path → 404', async () => {
    expect(await expectUpgradeRefused(fx.relay.url + '/other')).toBe(404);
  });
});
