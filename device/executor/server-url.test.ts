import { describe, expect, it } from 'vitest';
import { isAllowedWsUrl, parseServerUrl, wsUrlFor } from './server-url.ts';

describe('X1: TLS except to loopback', () => {
  it('https anywhere, http only to loopback', () => {
    expect(parseServerUrl('https://lane.example:8443').ok).toBe(true);
    for (const u of [
      'http://127.0.0.1:1',
      'http://127.9.9.9:1',
      'http://localhost:1',
      'http://[::1]:1',
    ]) {
      expect(parseServerUrl(u).ok).toBe(true);
    }
    for (const u of [
      'http://lane.example',
      'http://10.0.0.1:80',
      'http://[::2]:1',
      'http://127.0.0.1.evil.example',
    ]) {
      expect(parseServerUrl(u)).toMatchObject({ ok: false, code: 'insecure_server_url' });
    }
    for (const u of ['ftp://x', 'not a url', 'https://u:p@x', 'https://x/?q=1']) {
      expect(parseServerUrl(u)).toMatchObject({ ok: false, code: 'bad_server_url' });
    }
  });

  it('the WebSocket URL follows the server scheme, and ws:// is allowed only to loopback', () => {
    const s = parseServerUrl('https://lane.example');
    if (!s.ok) throw new Error();
    expect(wsUrlFor(s.url, '/v1/device/ws').href).toBe('wss://lane.example/v1/device/ws');
    expect(isAllowedWsUrl(new URL('ws://lane.example/x'))).toBe(false);
    expect(isAllowedWsUrl(new URL('ws://127.0.0.1:9/x'))).toBe(true);
  });
});
