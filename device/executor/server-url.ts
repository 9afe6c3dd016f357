// X1: nothing but TLS authenticates the server, and the server can run commands here, so plain
// http:// and ws:// are refused except to loopback addresses.
import { isIP } from 'node:net';

export type ServerUrlResult =
  | { readonly ok: true; readonly url: URL }
  | {
      readonly ok: false;
      readonly code: 'bad_server_url' | 'insecure_server_url';
      readonly message: string;
    };

export const isLoopbackHost = (hostname: string): boolean => {
  const h = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1';
  return false;
};

export const parseServerUrl = (text: string): ServerUrlResult => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return {
      ok: false,
      code: 'bad_server_url',
      message: `--server ${JSON.stringify(text)} is not a URL (expected https://host:port)`,
    };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return {
      ok: false,
      code: 'bad_server_url',
      message: `--server must be an http(s) URL, got ${url.protocol}`,
    };
  }
  if (url.username || url.password || url.search || url.hash) {
    return {
      ok: false,
      code: 'bad_server_url',
      message: '--server must not carry credentials, a query or a fragment',
    };
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return {
      ok: false,
      code: 'insecure_server_url',
      message: `refusing plain http to ${url.hostname}: only loopback may be reached without TLS (X1); use https://`,
    };
  }
  return { ok: true, url };
};

/** The WebSocket URL for wsPath on the same server: https → wss, http (loopback only) → ws. */
export const wsUrlFor = (server: URL, wsPath: string): URL => {
  const u = new URL(wsPath, server);
  u.protocol = server.protocol === 'https:' ? 'wss:' : 'ws:';
  return u;
};

/** Final guard at connect time, whatever built the URL. */
export const isAllowedWsUrl = (u: URL): boolean =>
  u.protocol === 'wss:' || (u.protocol === 'ws:' && isLoopbackHost(u.hostname));
