// The only platform globals protocol/ may use: they exist identically in browsers, service
// workers and Node 20. Declared here (not via lib "DOM" or @types/node) so that `window`,
// `document`, `Buffer` and `process` stay compile errors in this folder.
declare class TextEncoder {
  encode(input?: string): Uint8Array;
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean });
  decode(input?: Uint8Array): string;
}
// The WHATWG URL parser (pairing checks the relay URL with it, as every runtime here would).
declare class URL {
  constructor(url: string, base?: string);
  readonly protocol: string;
  readonly username: string;
  readonly password: string;
  readonly hostname: string;
  readonly host: string;
  /** E7: a registered WebAuthn origin must equal its own serialisation. */
  readonly origin: string;
  readonly hash: string;
  readonly href: string;
}
