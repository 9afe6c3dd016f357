// Connections per IP (D3) are counted per IPv4 address and per IPv6 /64, since one IPv6
// client usually owns a whole /64.
import net from 'node:net';

function expandIpv6(addr: string): string[] | null {
  const [head, tail] = addr.split('::') as [string, string | undefined];
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  if (tail === undefined) return h.length === 8 ? h : null;
  const fill = 8 - h.length - t.length;
  return fill < 0 ? null : [...h, ...Array<string>(fill).fill('0'), ...t];
}

export function ipKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (net.isIPv6(address)) {
    const groups = expandIpv6(address.split('%')[0] as string);
    if (groups)
      return (
        groups
          .slice(0, 4)
          .map((g) => parseInt(g, 16).toString(16))
          .join(':') + '::/64'
      );
  }
  return address;
}
