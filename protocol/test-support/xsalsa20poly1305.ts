// An independent XSalsa20-Poly1305 (NaCl crypto_secretbox), written from the Salsa20 and
// Poly1305 papers for the known-answer vectors only, so the vectors do not come from the
// tweetnacl code they test. Slow and not constant-time: never use it for real data.

const rotl = (x: number, n: number) => ((x << n) | (x >>> (32 - n))) >>> 0;
const u32 = (b: Uint8Array, i: number) =>
  (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;

const SIGMA = new TextEncoder().encode('expand 32-byte k');

function initialState(key: Uint8Array, input16: Uint8Array): Uint32Array {
  const s = new Uint32Array(16);
  s[0] = u32(SIGMA, 0);
  s[5] = u32(SIGMA, 4);
  s[10] = u32(SIGMA, 8);
  s[15] = u32(SIGMA, 12);
  for (let i = 0; i < 4; i++) {
    s[1 + i] = u32(key, 4 * i);
    s[11 + i] = u32(key, 16 + 4 * i);
    s[6 + i] = u32(input16, 4 * i);
  }
  return s;
}

function doubleRounds(x: Uint32Array): void {
  const qr = (a: number, b: number, c: number, d: number) => {
    x[b] = (x[b]! ^ rotl((x[a]! + x[d]!) >>> 0, 7)) >>> 0;
    x[c] = (x[c]! ^ rotl((x[b]! + x[a]!) >>> 0, 9)) >>> 0;
    x[d] = (x[d]! ^ rotl((x[c]! + x[b]!) >>> 0, 13)) >>> 0;
    x[a] = (x[a]! ^ rotl((x[d]! + x[c]!) >>> 0, 18)) >>> 0;
  };
  for (let i = 0; i < 10; i++) {
    qr(0, 4, 8, 12);
    qr(5, 9, 13, 1);
    qr(10, 14, 2, 6);
    qr(15, 3, 7, 11);
    qr(0, 1, 2, 3);
    qr(5, 6, 7, 4);
    qr(10, 11, 8, 9);
    qr(15, 12, 13, 14);
  }
}

function words(x: Uint32Array, idx: number[]): Uint8Array {
  const out = new Uint8Array(idx.length * 4);
  idx.forEach((w, i) => {
    for (let j = 0; j < 4; j++) out[4 * i + j] = (x[w]! >>> (8 * j)) & 0xff;
  });
  return out;
}

/** HSalsa20: derives the XSalsa20 subkey from the first 16 nonce bytes. */
function hsalsa20(key: Uint8Array, nonce16: Uint8Array): Uint8Array {
  const x = initialState(key, nonce16);
  doubleRounds(x);
  return words(x, [0, 5, 10, 15, 6, 7, 8, 9]);
}

function salsa20Block(key: Uint8Array, nonce8: Uint8Array, counter: number): Uint8Array {
  const input = new Uint8Array(16);
  input.set(nonce8);
  new DataView(input.buffer).setUint32(8, counter, true);
  const s = initialState(key, input);
  const x = s.slice();
  doubleRounds(x);
  for (let i = 0; i < 16; i++) x[i] = (x[i]! + s[i]!) >>> 0;
  return words(x, [...Array(16).keys()]);
}

function xsalsa20Stream(key: Uint8Array, nonce: Uint8Array, length: number): Uint8Array {
  const subkey = hsalsa20(key, nonce.subarray(0, 16));
  const out = new Uint8Array(length);
  for (let block = 0; block * 64 < length; block++) {
    const ks = salsa20Block(subkey, nonce.subarray(16, 24), block);
    out.set(ks.subarray(0, Math.min(64, length - block * 64)), block * 64);
  }
  return out;
}

function leBig(b: Uint8Array): bigint {
  let n = 0n;
  for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i]!);
  return n;
}

function poly1305(key: Uint8Array, msg: Uint8Array): Uint8Array {
  const p = (1n << 130n) - 5n;
  const r = leBig(key.subarray(0, 16)) & 0x0ffffffc0ffffffc0ffffffc0fffffffn;
  const s = leBig(key.subarray(16, 32));
  let acc = 0n;
  for (let i = 0; i < msg.length; i += 16) {
    const chunk = msg.subarray(i, i + 16);
    acc = ((acc + leBig(chunk) + (1n << BigInt(8 * chunk.length))) * r) % p;
  }
  let tag = (acc + s) & ((1n << 128n) - 1n);
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    out[i] = Number(tag & 0xffn);
    tag >>= 8n;
  }
  return out;
}

/** crypto_secretbox: tag(16) ‖ ciphertext, the layout nacl.secretbox returns. */
export function secretbox(message: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array {
  const stream = xsalsa20Stream(key, nonce, 32 + message.length);
  const c = message.map((m, i) => m ^ stream[32 + i]!);
  const out = new Uint8Array(16 + c.length);
  out.set(poly1305(stream.subarray(0, 32), c));
  out.set(c, 16);
  return out;
}

/**
 * crypto_box_beforenm's second half: crypto_box is crypto_secretbox under the key
 * HSalsa20(X25519(sk, pk), 0^16). The X25519 shared secret comes from the caller.
 */
export const boxKeyFromShared = (shared: Uint8Array): Uint8Array =>
  hsalsa20(shared, new Uint8Array(16));
