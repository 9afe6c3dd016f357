// P1: the relay's routes under one base path (`--path /relay`), so a single host name and
// certificate can serve the app at `/` and the relay at `/relay` behind one reverse proxy.
// The check sits at the HTTP and upgrade edge only; nothing behind it knows the path.

/** Path segments the base may hold: what a reverse proxy forwards unchanged (no `?`, `#`, `%`). */
const BASE_PATH = /^\/(?:[A-Za-z0-9._~-]+\/?)*$/;

export type BasePathResult = { ok: true; value: string } | { ok: false; message: string };

/** `/`, `/relay`, `/relay/`, `/a/b` → the base without its trailing slash (`/` stays `/`). */
export function parseBasePath(raw: string): BasePathResult {
  if (!BASE_PATH.test(raw) || raw.includes('//') || /(^|\/)\.\.?(\/|$)/.test(raw))
    return {
      ok: false,
      message: `must be "/" or a path like "/relay" (letters, digits, . _ ~ -), not "${raw}"`,
    };
  return { ok: true, value: raw.length > 1 ? raw.replace(/\/$/, '') : raw };
}

export const ROUTE = {
  socket: 'socket',
  healthz: 'healthz',
  vapid: 'vapid',
  metrics: 'metrics',
} as const;
export type Route = (typeof ROUTE)[keyof typeof ROUTE];

/** Which route a request's target names under `base` (its query ignored), or null. */
export function makeRouter(base: string): (target: string | undefined) => Route | null {
  const prefix = base === '/' ? '' : base;
  const routes = new Map<string, Route>([
    [`${prefix}/healthz`, ROUTE.healthz],
    [`${prefix}/vapid`, ROUTE.vapid],
    [`${prefix}/metrics`, ROUTE.metrics],
    // A client may be given `wss://host/relay` or `wss://host/relay/`: both are the socket.
    [prefix || '/', ROUTE.socket],
    [`${prefix}/`, ROUTE.socket],
  ]);
  return (target) => {
    const raw = target ?? '';
    const q = raw.indexOf('?');
    return routes.get(q === -1 ? raw : raw.slice(0, q)) ?? null;
  };
}
