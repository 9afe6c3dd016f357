// The pairing code (QR content / copy-paste, spec "Crypto") and the pairing link of D14. The code
// carries the secret, so it is parsed strictly and every refusal says exactly what was wrong.
import { fromBase64Url, toBase64Url, utf8Decode, utf8Encode } from './bytes.ts';
import { SECRET_BYTES } from './keys.ts';
import {
  BOX_KEY_BYTES,
  MAX_MACHINE_NAME_CHARS,
  MAX_PAIRING_CODE_CHARS,
  MAX_RELAY_URL_CHARS,
} from './limits.ts';
import { isLoopbackHost } from './hosts.ts';
import { err, ok, type Result } from './result.ts';

export { isLoopbackHost };

export type PairingPayload = {
  v: 1;
  relay: string;
  secret: string;
  machine: string;
  /**
   * E9: the machine's X25519 public key, base64url of 32 bytes. The phone pins it from the code
   * only; a code without it (an older machine) gets no E6/E9 features.
   */
  boxKey?: string;
};
export type Pairing = PairingPayload & { secretBytes: Uint8Array };

export const PAIRING_ERRORS = {
  'not-base64url': 'not-base64url',
  'not-json': 'not-json',
  'not-object': 'not-object',
  'unsupported-version': 'unsupported-version',
  'bad-relay-url': 'bad-relay-url',
  'bad-secret': 'bad-secret',
  'bad-machine-name': 'bad-machine-name',
  'too-long': 'too-long',
  /** E9: a `boxKey` that is not 32 bytes of base64url. */
  'bad-box-key': 'bad-box-key',
  /** parsePairingLink only: the link has no `#pair=` fragment. */
  'not-a-pairing-link': 'not-a-pairing-link',
} as const;
export type PairingErrorCode = keyof typeof PAIRING_ERRORS;

/** The payload's fields in the spec's order, so one payload always gives one code. */
export const encodePairing = (p: PairingPayload): string =>
  toBase64Url(
    utf8Encode(
      JSON.stringify({
        v: 1,
        relay: p.relay,
        secret: p.secret,
        machine: p.machine,
        ...(p.boxKey !== undefined ? { boxKey: p.boxKey } : {}),
      }),
    ),
  );

/** The relay URL rule of pairing codes (also E6's `room.rotate`): null when it is acceptable. */
export function checkRelay(relay: unknown): string | null {
  if (typeof relay !== 'string' || relay.length === 0) return 'The relay URL is missing.';
  if (relay.length > MAX_RELAY_URL_CHARS) return 'The relay URL is too long.';
  let url: URL;
  try {
    url = new URL(relay);
  } catch {
    return 'The relay is not a URL.';
  }
  if (url.username || url.password) return 'The relay URL must not carry credentials.';
  if (url.protocol === 'wss:') return null;
  if (url.protocol === 'ws:') {
    return isLoopbackHost(url.hostname)
      ? null
      : 'A ws:// relay is allowed only on this device (loopback); use wss://.';
  }
  return 'The relay URL must start with wss://.';
}

function checkMachineName(name: unknown): string | null {
  if (typeof name !== 'string' || name.trim().length === 0) return 'The machine name is missing.';
  if ([...name].length > MAX_MACHINE_NAME_CHARS) {
    return `The machine name is longer than ${MAX_MACHINE_NAME_CHARS} characters.`;
  }
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'The machine name has control characters.';
  return null;
}

export function parsePairing(code: string): Result<Pairing, PairingErrorCode> {
  if (typeof code !== 'string') return err('not-base64url', 'The pairing code is not text.');
  const trimmed = code.trim();
  if (trimmed.length > MAX_PAIRING_CODE_CHARS) {
    return err('too-long', `The pairing code is longer than ${MAX_PAIRING_CODE_CHARS} characters.`);
  }
  const bytes = fromBase64Url(trimmed);
  if (!bytes || bytes.length === 0)
    return err('not-base64url', 'The pairing code is not base64url.');
  const text = utf8Decode(bytes);
  if (!text.ok) return err('not-json', 'The pairing code does not hold JSON text.');
  let value: unknown;
  try {
    value = JSON.parse(text.value);
  } catch {
    return err('not-json', 'The pairing code does not hold JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return err('not-object', 'The pairing code does not hold a JSON object.');
  }
  const p = value as Record<string, unknown>;
  if (p.v !== 1)
    return err('unsupported-version', `Pairing version ${String(p.v)} is not supported.`);
  const relayProblem = checkRelay(p.relay);
  if (relayProblem) return err('bad-relay-url', relayProblem);
  const secretBytes = typeof p.secret === 'string' ? fromBase64Url(p.secret) : null;
  if (!secretBytes || secretBytes.length !== SECRET_BYTES) {
    return err('bad-secret', `The secret is not ${SECRET_BYTES} bytes of base64url.`);
  }
  const nameProblem = checkMachineName(p.machine);
  if (nameProblem) return err('bad-machine-name', nameProblem);
  if (p.boxKey !== undefined) {
    const key = typeof p.boxKey === 'string' ? fromBase64Url(p.boxKey) : null;
    if (!key || key.length !== BOX_KEY_BYTES) {
      return err('bad-box-key', `The machine key is not ${BOX_KEY_BYTES} bytes of base64url.`);
    }
  }
  return ok({
    v: 1,
    relay: p.relay as string,
    secret: p.secret as string,
    machine: p.machine as string,
    ...(p.boxKey !== undefined ? { boxKey: p.boxKey as string } : {}),
    secretBytes,
  });
}

/** D14: the payload rides in the fragment, which browsers never send to a server. */
export const pairingLink = (appUrl: string, code: string): string =>
  `${appUrl.replace(/\/+$/, '')}/#pair=${code}`;

/** Accepts a full link, a bare fragment (`#pair=…`) or `pair=…`; D14. */
export function parsePairingLink(urlOrHash: string): Result<Pairing, PairingErrorCode> {
  if (typeof urlOrHash !== 'string') return err('not-a-pairing-link', 'The link is not text.');
  const hashAt = urlOrHash.indexOf('#');
  const fragment = hashAt >= 0 ? urlOrHash.slice(hashAt + 1) : urlOrHash;
  const param = fragment.split('&').find((part) => part.startsWith('pair='));
  if (param === undefined) return err('not-a-pairing-link', 'The link has no #pair= code.');
  return parsePairing(param.slice('pair='.length));
}
