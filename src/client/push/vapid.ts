import { err, fromBase64Url, ok, type Result } from '../../../protocol/index.ts';

export const VAPID_ERRORS = {
  badRelayUrl: 'bad-relay-url',
  unreachable: 'vapid-unreachable',
  invalid: 'vapid-invalid',
} as const;
export type VapidErrorCode = (typeof VAPID_ERRORS)[keyof typeof VAPID_ERRORS];

/** P-256 public key, uncompressed point: 0x04 ‖ X ‖ Y. */
const VAPID_PUBLIC_KEY_BYTES = 65;

/** `/vapid` for a `ws(s)://` relay URL: at the root of its origin (spec), or below the relay's
 * base path when it has one (P1: `wss://host/relay` → `https://host/relay/vapid`). */
export function vapidUrl(relayUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(relayUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'wss:' && url.protocol !== 'ws:') return null;
  const base = url.pathname.replace(/\/+$/, '');
  return `${url.protocol === 'wss:' ? 'https:' : 'http:'}//${url.host}${base}/vapid`;
}

/** Checks `{ publicKey }` from `GET /vapid`: base64url of a 65-byte uncompressed P-256 point. */
export function parseVapidResponse(body: unknown): Result<string, VapidErrorCode> {
  const key =
    typeof body === 'object' && body !== null
      ? (body as { publicKey?: unknown }).publicKey
      : undefined;
  const bytes = typeof key === 'string' ? fromBase64Url(key) : null;
  if (
    typeof key !== 'string' ||
    !bytes ||
    bytes.length !== VAPID_PUBLIC_KEY_BYTES ||
    bytes[0] !== 4
  ) {
    return err(VAPID_ERRORS.invalid, 'The relay sent no valid VAPID public key.');
  }
  return ok(key);
}

export async function fetchVapidKey(
  relayUrl: string,
  fetchFn: typeof fetch = fetch,
): Promise<Result<string, VapidErrorCode>> {
  const url = vapidUrl(relayUrl);
  if (!url) {
    return err(VAPID_ERRORS.badRelayUrl, `Not a relay URL: ${relayUrl}`);
  }
  try {
    const response = await fetchFn(url, { cache: 'no-store' });
    if (!response.ok) {
      return err(VAPID_ERRORS.unreachable, `The relay answered ${response.status}.`);
    }
    return parseVapidResponse(await response.json());
  } catch {
    return err(VAPID_ERRORS.unreachable, 'The relay could not be reached.');
  }
}
