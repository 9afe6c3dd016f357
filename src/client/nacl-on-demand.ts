import type Nacl from 'tweetnacl';

// A8: the crypto library (tweetnacl, ~10 KiB gzip) is not needed to draw the first screen —
// pairings and the offline views come from IndexedDB — so the app build resolves protocol/'s
// `import nacl from 'tweetnacl'` to this module (vite.config.ts), and the library itself is a
// lazy chunk. The client's start() and pair() wait for loadNacl() (ClientDeps.loadCrypto), so
// every seal, open and key derivation runs after it; a call before it fails loudly, never
// silently. Unit tests and Node parts import tweetnacl itself.
type NaclApi = typeof Nacl;

let real: NaclApi | null = null;
let loading: Promise<void> | null = null;

/** Loads the library once; resolves when seal/open/derive may run. */
export function loadNacl(): Promise<void> {
  loading ??= import('tweetnacl/nacl-fast.js').then((m) => {
    real = m.default;
  });
  return loading;
}

export const NACL_NOT_LOADED = 'A8: the crypto library was used before loadNacl() resolved';

const need = (): NaclApi => {
  if (real) return real;
  throw new Error(NACL_NOT_LOADED);
};

type Bytes = Uint8Array;
const secretbox = Object.assign(
  (msg: Bytes, nonce: Bytes, key: Bytes) => need().secretbox(msg, nonce, key),
  {
    open: (box: Bytes, nonce: Bytes, key: Bytes) => need().secretbox.open(box, nonce, key),
  },
);
const keyPair = Object.assign(() => need().box.keyPair(), {
  fromSecretKey: (secretKey: Bytes) => need().box.keyPair.fromSecretKey(secretKey),
});
const box = Object.assign(
  (msg: Bytes, nonce: Bytes, publicKey: Bytes, secretKey: Bytes) =>
    need().box(msg, nonce, publicKey, secretKey),
  {
    open: (msg: Bytes, nonce: Bytes, publicKey: Bytes, secretKey: Bytes) =>
      need().box.open(msg, nonce, publicKey, secretKey),
    keyPair,
  },
);

/** The part of tweetnacl's API protocol/ uses (nacl-on-demand.test.ts keeps the list honest). */
export default {
  randomBytes: (n: number) => need().randomBytes(n),
  hash: (msg: Bytes) => need().hash(msg),
  secretbox,
  box,
};
