import { describe, expect, it } from 'vitest';
import { pairingCodeIn, parseRoute, routeHref, type Route } from './router.ts';

describe('Routes: every screen has a URL (notification deep links)', () => {
  const routes: Route[] = [
    { name: 'inbox' },
    { name: 'pair' },
    { name: 'settings' },
    { name: 'new' },
    { name: 'new', roomId: 'r-1_x' },
    { name: 'machine', roomId: 'r-1_x' },
    { name: 'rules', roomId: 'r-1_x' },
    { name: 'phones', roomId: 'r-1_x' },
    { name: 'session', roomId: 'r', sessionId: 's/with space' },
    { name: 'session', roomId: 'r', sessionId: 's', card: { kind: 'approval', id: 'a1' } },
    { name: 'session', roomId: 'r', sessionId: 's', card: { kind: 'question', id: 'q1' } },
  ];
  it.each(routes)('round-trips %o', (route) => {
    expect(parseRoute(routeHref(route))).toEqual(route);
  });
  it('unknown paths are not-found, never the inbox', () => {
    expect(parseRoute('#/nope').name).toBe('not-found');
    expect(parseRoute('#/m/%E0%A4%A').name).toBe('not-found');
  });
  it('D14: a #pair= fragment is recognised and is not a route', () => {
    expect(pairingCodeIn('#pair=abc')).toBe('abc');
    expect(pairingCodeIn('#/pair')).toBeNull();
  });
});
