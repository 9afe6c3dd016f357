import type * as Sha256 from '../../protocol/sha256.ts';

// A8 + E9: protocol/sha256.ts (synchronous SHA-256, ~0.8 KiB gzip) serves only when a card
// arrives (its content hash) or an action is sealed or signed — never to draw the first screen. The
// app build resolves protocol/'s `./sha256.ts` to this module (vite.config.ts) and loads the real
// one with the crypto library (loadNacl, awaited through ClientDeps.loadCrypto before any room
// connects). A call before it fails loudly, never silently.
type Sha256Api = typeof Sha256;

let real: Sha256Api | null = null;
let loading: Promise<void> | null = null;

/** Loads protocol/sha256.ts once; resolves when sha256 and sha256Hex may run. */
export function loadSha256(): Promise<void> {
  loading ??= import('../../protocol/sha256.ts').then((m) => {
    real = m;
  });
  return loading;
}

export const SHA256_NOT_LOADED = 'A8: SHA-256 was used before loadNacl() resolved';

const need = (): Sha256Api => {
  if (real) return real;
  throw new Error(SHA256_NOT_LOADED);
};

export const sha256: Sha256Api['sha256'] = (data) => need().sha256(data);
export const sha256Hex: Sha256Api['sha256Hex'] = (text) => need().sha256Hex(text);
