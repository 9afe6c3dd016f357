// D4: push-subscribe must not turn the relay into an SSRF proxy. The endpoint must be https,
// ≤ 1 KiB, name a host (no IP literal) whose addresses are all public; keys must be a P-256
// point (65 bytes) and a 16-byte auth secret. Origins named by the test-only
// --unsafe-allow-push-origin skip the endpoint checks (never the key checks).
import dns from 'node:dns';
import net from 'node:net';
import { fromBase64Url, type PushSubscriptionJson } from '../protocol/index.ts';
import type { StoredSubscription } from './subscriptions.ts';

export const MAX_ENDPOINT_BYTES = 1_024;

const blocked = new net.BlockList();
for (const [addr, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(addr, bits, 'ipv4');
for (const [addr, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
] as const)
  blocked.addSubnet(addr, bits, 'ipv6');

/** Loopback, private, link-local, unique-local, multicast, reserved, mapped: not public. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  // IPv4-mapped IPv6 is refused outright: a BlockList /96 for it would also match every IPv4.
  if (family === 6 && /^::ffff:/i.test(address)) return false;
  return !blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type Resolve = (host: string) => Promise<string[]>;
export const systemResolve: Resolve = async (host) =>
  (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

// Browsers send unpadded base64url; tolerate padding, refuse anything else (strict decoder).
const decodedLength = (s: string): number => fromBase64Url(s.replace(/={1,2}$/, ''))?.length ?? -1;

export type EndpointCheck = { ok: true; sub: StoredSubscription } | { ok: false; message: string };

/** The synchronous part: shape, scheme, size, keys. */
export function checkSubscriptionShape(
  sub: PushSubscriptionJson,
  unsafeOrigins: ReadonlySet<string>,
): EndpointCheck & { needsDns?: string } {
  if (Buffer.byteLength(sub.endpoint) > MAX_ENDPOINT_BYTES) {
    return { ok: false, message: `endpoint is over ${MAX_ENDPOINT_BYTES} bytes` };
  }
  if (decodedLength(sub.keys.p256dh) !== 65)
    return { ok: false, message: 'keys.p256dh must be 65 bytes of base64url' };
  if (decodedLength(sub.keys.auth) !== 16)
    return { ok: false, message: 'keys.auth must be 16 bytes of base64url' };
  let url: URL;
  try {
    url = new URL(sub.endpoint);
  } catch {
    return { ok: false, message: 'endpoint is not a URL' };
  }
  const stored = { endpoint: sub.endpoint, p256dh: sub.keys.p256dh, auth: sub.keys.auth };
  if (unsafeOrigins.has(url.origin)) return { ok: true, sub: stored };
  if (url.protocol !== 'https:') return { ok: false, message: 'endpoint must be https' };
  if (url.username || url.password)
    return { ok: false, message: 'endpoint must not carry credentials' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) !== 0)
    return { ok: false, message: 'endpoint must name a host, not an IP address' };
  return { ok: true, sub: stored, needsDns: host };
}

/** The whole D4 check, including where the host name resolves to. */
export async function checkSubscription(
  sub: PushSubscriptionJson,
  unsafeOrigins: ReadonlySet<string>,
  resolve: Resolve,
): Promise<EndpointCheck> {
  const shape = checkSubscriptionShape(sub, unsafeOrigins);
  if (!shape.ok || shape.needsDns === undefined) return shape;
  let addresses: string[];
  try {
    addresses = await resolve(shape.needsDns);
  } catch {
    return { ok: false, message: 'endpoint host does not resolve' };
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    return { ok: false, message: 'endpoint host resolves to a non-public address' };
  }
  return { ok: true, sub: shape.sub };
}
