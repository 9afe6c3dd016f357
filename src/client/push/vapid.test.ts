import { describe, expect, it } from 'vitest';
import { toBase64Url } from '../../../protocol/index.ts';
import { parseVapidResponse, vapidUrl } from './vapid.ts';

describe('Relay HTTP: GET /vapid → {"publicKey":"…"} (spec)', () => {
  it('wss relays are asked over https, ws over http, on the same host below the relay’s base path (P1)', () => {
    expect(vapidUrl('wss://relay.example')).toBe('https://relay.example/vapid');
    expect(vapidUrl('ws://127.0.0.1:8787')).toBe('http://127.0.0.1:8787/vapid');
    expect(vapidUrl('ws://127.0.0.1:8787/')).toBe('http://127.0.0.1:8787/vapid');
    expect(vapidUrl('wss://dsh.test:8443/relay')).toBe('https://dsh.test:8443/relay/vapid');
    expect(vapidUrl('wss://dsh.test/relay/')).toBe('https://dsh.test/relay/vapid');
    expect(vapidUrl('https://relay.example')).toBeNull();
    expect(vapidUrl('not a url')).toBeNull();
  });
  it('accepts only a 65-byte uncompressed P-256 point', () => {
    const point = new Uint8Array(65);
    point[0] = 4;
    expect(parseVapidResponse({ publicKey: toBase64Url(point) })).toEqual({
      ok: true,
      value: toBase64Url(point),
    });
    for (const bad of [
      {},
      { publicKey: 'short' },
      { publicKey: toBase64Url(new Uint8Array(65)) },
      null,
    ]) {
      expect(parseVapidResponse(bad)).toMatchObject({ ok: false, code: 'vapid-invalid' });
    }
  });
});
