import { Buffer } from 'node:buffer';
import { DEVICE_HELLO_DOMAIN_TAG } from './constants.ts';
import { decodeUlid16 } from './ulid.ts';

export type HelloSignatureFields = {
  readonly nonce: string;
  readonly deviceId: string;
  readonly epoch: string;
  readonly protocolVersion: number;
};

const u32be = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

const lengthPrefixed = (s: string): Buffer => {
  const bytes = Buffer.from(s, 'utf8');
  return Buffer.concat([u32be(bytes.length), bytes]);
};

/**
 * §1.3, byte-exact: tag ‖ u32be(len) nonce ‖ u32be(len) deviceId ‖ epoch16 ‖ u32be(version).
 * Throws on a malformed epoch (the decoder's null becomes a loud error here, as in the spec).
 */
export const buildHelloSignaturePayload = (f: HelloSignatureFields): Uint8Array => {
  const epoch16 = decodeUlid16(f.epoch);
  if (epoch16 === null) {
    throw new Error(`device-ws: epoch must be a 26-char Crockford ULID (got "${f.epoch}")`);
  }
  if (
    !Number.isInteger(f.protocolVersion) ||
    f.protocolVersion < 0 ||
    f.protocolVersion > 0xffffffff
  ) {
    throw new Error(`device-ws: protocolVersion must be a u32 (got ${f.protocolVersion})`);
  }
  const out = Buffer.concat([
    Buffer.from(DEVICE_HELLO_DOMAIN_TAG, 'utf8'),
    lengthPrefixed(f.nonce),
    lengthPrefixed(f.deviceId),
    Buffer.from(epoch16),
    u32be(f.protocolVersion),
  ]);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
};
