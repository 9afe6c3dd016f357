// P2: the content policy and the other security headers, in one place. vite.config.ts sends them
// from `vite preview` (npm start, the e2e suite) and writes the meta CSP into the built
// index.html; deploy/Caddyfile carries the production strings, which
// scripts/security-headers.test.ts compares with these.

type Directives = Record<string, readonly string[]>;

/** The policy of a real deployment: the app and its relay on one https origin (P1). */
const PRODUCTION: Directives = {
  'default-src': ["'self'"],
  // Only the origin's own files: no inline script, no eval (no 'unsafe-*' anywhere).
  'script-src': ["'self'"],
  // The relay: same origin (`wss://host/relay`), or another `wss://` relay of a pairing code.
  'connect-src': ["'self'", 'wss:'],
  'worker-src': ["'self'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/**
 * The demo on this computer (npm start, the e2e suite) runs its relay on a loopback port of its
 * own, not behind the app's origin: the app needs `ws://` to it and plain `http://` for its
 * `/vapid` (the key notifications are set up with). Loopback only; never in deploy/Caddyfile.
 */
const LOOPBACK_RELAY = [
  'ws://127.0.0.1:*',
  'ws://localhost:*',
  'http://127.0.0.1:*',
  'http://localhost:*',
];

const render = (d: Directives) =>
  Object.entries(d)
    .map(([k, v]) => `${k} ${v.join(' ')}`)
    .join('; ');

export const PRODUCTION_CSP = render(PRODUCTION);
const LOOPBACK: Directives = {
  ...PRODUCTION,
  'connect-src': [...(PRODUCTION['connect-src'] ?? []), ...LOOPBACK_RELAY],
};
export const LOOPBACK_CSP = render(LOOPBACK);
/**
 * For `<meta http-equiv>`: browsers ignore (and warn about) frame-ancestors there. It carries the
 * loopback sources so the demo works; a host that also sends PRODUCTION_CSP as a header gets the
 * intersection of both, which is the production policy.
 */
export const META_CSP = render(
  Object.fromEntries(Object.entries(LOOPBACK).filter(([k]) => k !== 'frame-ancestors')),
);

/** The headers besides the CSP, the same everywhere the app is served. */
export const OTHER_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // The QR scanner needs the camera, on this origin only; nothing else is ever asked for.
  'Permissions-Policy': 'camera=(self), microphone=(), geolocation=()',
  // F5: the app's window shares no browsing context group with a page that opened it or that it
  // opens (links to agents' https: targets use noopener too): no window.opener either way.
  'Cross-Origin-Opener-Policy': 'same-origin',
} as const;

/**
 * F5: HSTS, on a real domain only (deploy/Caddyfile's `public` snippet): a year, no
 * includeSubDomains or preload (the operator's other names are not ours to pin). Never on the
 * LAN site of `npm start -- --lan` (a LAN name must not stay pinned to https once its CA is
 * gone) nor on loopback http, where browsers ignore it.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/** Every header `vite preview` sends (the demo's policy). */
export const LOOPBACK_HEADERS: Record<string, string> = {
  'Content-Security-Policy': LOOPBACK_CSP,
  ...OTHER_HEADERS,
};
