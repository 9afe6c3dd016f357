import { describe, expect, it } from 'vitest';
import { makeAppBadge } from './app-badge.ts';

function recordingApi() {
  const calls: string[] = [];
  const answer = () => Promise.resolve();
  return {
    calls,
    api: {
      setAppBadge: (n: number) => (calls.push(`set ${n}`), answer()),
      clearAppBadge: () => (calls.push('clear'), answer()),
    },
  };
}

describe('app badge (A4: the badge counts what waits for the owner)', () => {
  it('sets the count when it changes, clears it at zero, and stays quiet while it does not change', () => {
    const { calls, api } = recordingApi();
    const badge = makeAppBadge(api);
    for (const n of [0, 1, 1, 1, 2, 0, 0, 3]) badge.show(n);
    expect(calls).toEqual(['clear', 'set 1', 'set 2', 'clear', 'set 3']);
  });

  it('a platform without the Badging API, or one that refuses it, costs nothing', () => {
    expect(() => makeAppBadge({}).show(2)).not.toThrow();
    // A refusal (NotAllowedError outside an installed app) must be handled, never left to
    // surface as an unhandled rejection.
    const refusal = Promise.reject(new Error('NotAllowedError'));
    let handled = false;
    const watched = {
      catch: (fn: (e: unknown) => unknown) => ((handled = true), refusal.catch(fn)),
    } as unknown as Promise<void>;
    makeAppBadge({ setAppBadge: () => watched }).show(4);
    expect(handled).toBe(true);
  });
});
