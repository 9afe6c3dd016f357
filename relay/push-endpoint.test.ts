import { describe, expect, it } from 'vitest';
import { isPublicAddress } from './push-endpoint.ts';

describe('D4: which addresses a push endpoint may resolve to', () => {
  it.each([
    ['93.184.216.34', true],
    ['8.8.8.8', true],
    ['2606:2800:220:1::1', true],
    ['2a00:1450:4001:82b::200a', true],
    ['127.0.0.1', false],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['fd00::1', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', false],
    ['2001:db8::1', false],
    ['not-an-ip', false],
    ['127.1', false],
  ])('%s → public %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

// Each range the audit found accepted, and the forms that wrap 127.0.0.1 and 10.0.0.1: an
// IPv6 address is public only inside 2000::/3 and outside every special-purpose range.
describe('H9: only global unicast; mapped, translated, tunnelled and deprecated forms are refused', () => {
  it.each([
    ['IPv4-compatible ::7f00:1 (127.0.0.1)', '::7f00:1'],
    ['IPv4-compatible ::127.0.0.1', '::127.0.0.1'],
    ['IPv4-compatible ::a00:1 (10.0.0.1)', '::a00:1'],
    ['NAT64 local-use 64:ff9b:1::/48', '64:ff9b:1::1'],
    ['NAT64 local-use 64:ff9b:1:: + 127.0.0.1', '64:ff9b:1::7f00:1'],
    ['NAT64 well-known 64:ff9b::127.0.0.1', '64:ff9b::127.0.0.1'],
    ['NAT64 well-known 64:ff9b::7f00:1', '64:ff9b::7f00:1'],
    ['NAT64 well-known 64:ff9b::10.0.0.1', '64:ff9b::10.0.0.1'],
    ['NAT64 well-known 64:ff9b::a00:1', '64:ff9b::a00:1'],
    ['IPv4-mapped ::ffff:127.0.0.1', '::ffff:127.0.0.1'],
    ['IPv4-mapped ::ffff:7f00:1', '::ffff:7f00:1'],
    ['IPv4-mapped ::ffff:10.0.0.1', '::ffff:10.0.0.1'],
    ['IPv4-mapped ::ffff:a00:1', '::ffff:a00:1'],
    ['IPv4-translated ::ffff:0:7f00:1', '::ffff:0:7f00:1'],
    ['6to4 2002::/16', '2002::1'],
    ['6to4 of 127.0.0.1', '2002:7f00:1::1'],
    ['6to4 of 10.0.0.1', '2002:a00:1::1'],
    ['site-local fec0::/10', 'fec0::1'],
    ['site-local fefe::', 'feff:ffff::1'],
    ['Teredo 2001::/32', '2001::1'],
    ['Teredo 2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['discard-only 100::/64', '100::1'],
    ['discard-only 100::ffff:ffff:ffff:ffff', '100::ffff:ffff:ffff:ffff'],
    ['outside 2000::/3: 4000::1', '4000::1'],
    ['outside 2000::/3: 1fff:ffff::1', '1fff:ffff::1'],
  ])('%s is refused', (_name, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});
