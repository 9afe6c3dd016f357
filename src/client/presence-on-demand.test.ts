import { describe, expect, it } from 'vitest';
import * as real from '../../protocol/presence.ts';
import { loadNacl } from './nacl-on-demand.ts';
import * as shim from './presence-on-demand.ts';

// A8: protocol/presence.ts goes through this module in the app build (vite.config.ts), loaded with
// the crypto library. It must fail loudly before, give exactly protocol/presence.ts's results
// after, and offer every function; the constants it leaves out must be unused by the app.
const request = { tool: 'Bash', title: 'Run tests', detail: 'npm test' };
const NOT_OFFERED = ['PRESENCE_CHALLENGE_PREFIX', 'PHONE_AUTHORITY_ACTIONS'];

describe('A8: the presence challenges on demand', () => {
  it('A8: a challenge or content hash before loadNacl() resolved throws, never guesses', () => {
    expect(() => shim.approvalContentHash(request)).toThrow(shim.PRESENCE_NOT_LOADED);
    expect(() => shim.dispatchNeedsPresence(undefined, 'full')).toThrow(shim.PRESENCE_NOT_LOADED);
  });

  it('A8: once loadNacl() resolved, every function gives exactly what protocol/presence.ts gives', async () => {
    await loadNacl();
    expect(shim.approvalContentHash(request)).toBe(real.approvalContentHash(request));
    const dispatch = { prompt: 'fix it', worktree: true, access: 'full' as const };
    expect(shim.dispatchContentHash(dispatch)).toBe(real.dispatchContentHash(dispatch));
    expect(shim.editedHash('npm t')).toBe(real.editedHash('npm t'));
    const c = { roomId: 'r', requestId: 'q', ts: 5, content: real.dispatchContentHash(dispatch) };
    expect(shim.dispatchChallengeText(c)).toBe(real.dispatchChallengeText(c));
    const missing = Object.keys(real).filter((name) => !(name in shim));
    expect(missing.sort()).toEqual([...NOT_OFFERED].sort());
    for (const name of Object.keys(real).filter((n) => !NOT_OFFERED.includes(n)))
      expect(typeof (shim as Record<string, unknown>)[name]).toBe('function');
  });

  it('A8: the app uses none of the constants the on-demand module leaves out', () => {
    const sources = import.meta.glob<string>(['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    });
    const users = Object.entries(sources)
      .filter(
        ([path, text]) =>
          !path.endsWith('presence-on-demand.ts') && NOT_OFFERED.some((n) => text.includes(n)),
      )
      .map(([path]) => path);
    expect(Object.keys(sources).length).toBeGreaterThan(20);
    expect(users).toEqual([]);
  });
});
