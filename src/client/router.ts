// Hash routes, so every screen has a URL a notification can open (push issue) and the production
// build needs no server-side fallback. `#pair=` (D14) is not a route: it is read and erased first.
export type Route =
  | { name: 'inbox' }
  | { name: 'pair' }
  | { name: 'settings' }
  | { name: 'machine'; roomId: string }
  /** E2: Machine › Rules, the machine's remembered approvals. */
  | { name: 'rules'; roomId: string }
  /** E6: Machine › Phones, every phone paired with one machine. */
  | { name: 'phones'; roomId: string }
  | {
      name: 'session';
      roomId: string;
      sessionId: string;
      card?: { kind: 'approval' | 'question'; id: string };
    }
  | { name: 'new'; roomId?: string }
  | { name: 'not-found'; path: string };

const seg = (s: string) => encodeURIComponent(s);
const unseg = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
};

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '').replace(/^\/?/, '/');
  const parts = path
    .split('/')
    .slice(1)
    .filter((p) => p !== '');
  const decoded = parts.map(unseg);
  if (decoded.some((p) => p === null)) return { name: 'not-found', path };
  const [a, b, c, d, e, f] = decoded as string[];
  if (parts.length === 0) return { name: 'inbox' };
  if (a === 'pair' && parts.length === 1) return { name: 'pair' };
  if (a === 'settings' && parts.length === 1) return { name: 'settings' };
  if (a === 'new' && parts.length <= 2) return b ? { name: 'new', roomId: b } : { name: 'new' };
  if (a === 'm' && b && parts.length === 2) return { name: 'machine', roomId: b };
  if (a === 'm' && b && c === 'rules' && parts.length === 3) return { name: 'rules', roomId: b };
  if (a === 'm' && b && c === 'phones' && parts.length === 3) return { name: 'phones', roomId: b };
  if (a === 'm' && b && c === 's' && d) {
    if (parts.length === 4) return { name: 'session', roomId: b, sessionId: d };
    if (parts.length === 6 && (e === 'approval' || e === 'question') && f)
      return { name: 'session', roomId: b, sessionId: d, card: { kind: e, id: f } };
  }
  return { name: 'not-found', path };
}

export function routeHref(route: Route): string {
  switch (route.name) {
    case 'inbox':
      return '#/';
    case 'pair':
    case 'settings':
      return `#/${route.name}`;
    case 'new':
      return route.roomId ? `#/new/${seg(route.roomId)}` : '#/new';
    case 'machine':
      return `#/m/${seg(route.roomId)}`;
    case 'rules':
      return `#/m/${seg(route.roomId)}/rules`;
    case 'phones':
      return `#/m/${seg(route.roomId)}/phones`;
    case 'session': {
      const base = `#/m/${seg(route.roomId)}/s/${seg(route.sessionId)}`;
      return route.card ? `${base}/${route.card.kind}/${seg(route.card.id)}` : base;
    }
    case 'not-found':
      return `#${route.path}`;
  }
}

/** The pairing code of a `#pair=` fragment (D14), or null. */
export function pairingCodeIn(hash: string): string | null {
  const m = /^#pair=(.+)$/.exec(hash);
  return m?.[1] ?? null;
}
