// esbuild entry for e2e/vectors.spec.ts: exposes the vector checks and a CSPRNG probe to the page.
import { checkPresenceDigests, checkVectors } from './vector-runner.ts';
import { generateSecret } from '../keys.ts';
import { open, seal } from '../seal.ts';
import { deriveKey } from '../keys.ts';

(globalThis as Record<string, unknown>).__protocolVectors = {
  checkVectors,
  /** E7: the challenge hashed with this context's WebCrypto, as the app will. */
  presenceDigests: () =>
    checkPresenceDigests((data) => globalThis.crypto.subtle.digest('SHA-256', data)),
  /** Fresh secrets and a seal/open round trip with a random nonce: exercises nacl.randomBytes. */
  randomness() {
    const a = generateSecret();
    const b = generateSecret();
    const key = deriveKey(a);
    const p1 = seal({ hi: 1 }, key);
    const p2 = seal({ hi: 1 }, key);
    const r = open(p1, key);
    return {
      secretLength: a.length,
      secretsDiffer: a.some((x, i) => x !== b[i]),
      payloadsDiffer: p1 !== p2,
      roundTrip: r.ok && JSON.stringify(r.value) === '{"hi":1}',
    };
  },
};
