import { describe, expect, it } from 'vitest';
import * as real from '../../protocol/sha256.ts';
import { loadNacl } from './nacl-on-demand.ts';
import * as shim from './sha256-on-demand.ts';

// A8 + E9: protocol/'s SHA-256 goes through this module in the app build (vite.config.ts), loaded
// with the crypto library. It must fail loudly before, give exactly protocol/sha256.ts's results
// after, and offer every export protocol/sha256.ts has.
const bytes = new TextEncoder().encode('dsh-dispatch/decision');

describe('A8: SHA-256 on demand', () => {
  it('A8: a hash before loadNacl() resolved throws, never guesses', () => {
    expect(() => shim.sha256(bytes)).toThrow(shim.SHA256_NOT_LOADED);
    expect(() => shim.sha256Hex('x')).toThrow(shim.SHA256_NOT_LOADED);
  });

  it('A8: once loadNacl() resolved, every export gives exactly what protocol/sha256.ts gives', async () => {
    await loadNacl();
    expect(shim.sha256(bytes)).toEqual(real.sha256(bytes));
    expect(shim.sha256Hex('edited ✓')).toBe(real.sha256Hex('edited ✓'));
    const missing = Object.keys(real).filter((name) => !(name in shim));
    expect(missing).toEqual([]);
  });
});
