// D4: push-subscribe must not turn the relay into an SSRF proxy. The endpoint must be https,
// ≤ 1 KiB, name a host (no IP literal) whose addresses are all public; keys must be a P-256
// point (65 bytes) and a 16-byte auth secret. Origins named by the test-only
// --unsafe-allow-push-origin skip the endpoint checks (never the key checks).
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { fromBase64Url, type PushSubscriptionJson } from '../protocol/index.ts';
import type { StoredSubscription } from './subscriptions.ts';

export const MAX_ENDPOINT_BYTES = 1_024;

// H9: only global unicast. ipaddr.js (pinned) keeps the IANA special-purpose registries, and
// an IPv6 address must also lie in 2000::/3, the only block IANA allocates for global unicast.
// So everything below 2000:: is refused whatever its form — IPv4-compatible (::7f00:1),
// discard-only (100::/64), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), site-local (fec0::/10) — and
// the tunnelled forms inside 2000::/3 (6to4 2002::/16, Teredo 2001::/32) are named ranges, so
// they are refused too: they carry an inner IPv4 address (127.0.0.1, 10.0.0.1) that a
// gateway may deliver to, and the relay cannot vouch for it.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** Global unicast only: loopback, private, link-local, unique-local, multicast, reserved,
 * mapped, translated and tunnelled addresses are not public. */
export function isPublicAddress(address: string): boolean {
  // net.isIP first: ipaddr.js also accepts IPv4 shorthands ("127.1", "0x7f.1") that no DNS
  // answer or socket address takes.
  const family = net.isIP(address);
  if (family === 0) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  if (parsed.range() !== 'unicast') return false;
  return parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST_V6);
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
