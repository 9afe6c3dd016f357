// device/wire: the device executor protocol's shared vocabulary, used by the lane and the
// executor alike. No lane or executor logic lives here. See README.md for the export list.
export * from './closed-sets.ts';
export * from './constants.ts';
export * from './frames.ts';
export * from './base64.ts';
export * from './ulid.ts';
export * from './hello-payload.ts';
export * from './ed25519.ts';
export * from './outcome.ts';
export * from './parse-device-frame.ts';
export * from './parse-server-frame.ts';
export * from './instruction-args.ts';
export * from './http.ts';
export * from './capabilities.ts';
export * from './encode.ts';
export { isCanonicalGen, SHA256_HEX_PATTERN } from './check.ts';
export * from './parse-device-bytes.ts';
