import { execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LAN_CA_ID, LAN_CA_RENEW_BEFORE_MS, LAN_CA_VALIDITY_DAYS, ensureLanCa } from './lan-ca.ts';

// F2: the CA `npm start -- --lan` asks a phone to trust, checked as an attacker holding its key
// would use it: certificates it signs for anything but the LAN address fail verification.

const tmp = mkdtempSync(path.join(os.tmpdir(), 'dsh-lan-ca-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const DAY_MS = 24 * 60 * 60 * 1000;
let n = 0;
const fresh = () => {
  const dir = path.join(tmp, `case-${++n}`);
  return { dir: path.join(dir, 'lan-ca'), caddyData: path.join(dir, 'data') };
};
const openssl = (args: string[]) =>
  execFileSync('openssl', args, {
    encoding: 'utf8',
    env: { ...process.env, OPENSSL_CONF: '/dev/null' },
  });

/** A server certificate for `san` signed with the CA's key (no subject name: as Caddy's are),
 * then `openssl verify` against the CA alone: 'OK' or openssl's reason. */
function signAndVerify(ca: { cert: string; key: string }, san: string): string {
  const dir = mkdtempSync(path.join(tmp, 'leaf-'));
  const [key, csr, crt] = ['leaf.key', 'leaf.csr', 'leaf.crt'].map((f) => path.join(dir, f));
  openssl([
    'req',
    '-new',
    '-nodes',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-keyout',
    key!,
    '-out',
    csr!,
    '-subj',
    '/O=attacker',
    '-addext',
    `subjectAltName=${san}`,
  ]);
  openssl([
    'x509',
    '-req',
    '-in',
    csr!,
    '-CA',
    ca.cert,
    '-CAkey',
    ca.key,
    '-days',
    '1',
    '-copy_extensions',
    'copy',
    '-out',
    crt!,
  ]);
  const r = spawnSync('openssl', ['verify', '-CAfile', ca.cert, crt!], { encoding: 'utf8' });
  return r.status === 0
    ? 'OK'
    : (/error \d+ at \d+ depth lookup: (.*)/.exec(r.stdout + r.stderr)?.[1] ?? r.stderr);
}

describe('F2: the LAN CA is the LAN address’s only, and short-lived', () => {
  it('F2: for an IP address it signs for that address alone: another address, any name and IPv6 fail (permitted subtree violation)', () => {
    const ca = ensureLanCa({ host: '192.168.1.20', ...fresh() });
    expect(openssl(['x509', '-in', ca.cert, '-noout', '-ext', 'nameConstraints'])).toMatch(
      /Name Constraints: critical\s+Permitted:\s+IP:192\.168\.1\.20\/255\.255\.255\.255\s+DNS:invalid\s*$/,
    );
    expect(signAndVerify(ca, 'IP:192.168.1.20')).toBe('OK');
    for (const other of [
      'IP:192.168.1.21',
      'IP:127.0.0.1',
      'DNS:example.com',
      'DNS:accounts.google.com',
      'IP:::1',
    ])
      expect(signAndVerify(ca, other), other).toBe('permitted subtree violation');
  });

  it('F2: for a name it signs for that name (and names under it) alone; no IP address', () => {
    const ca = ensureLanCa({ host: 'desk.lan', ...fresh() });
    expect(signAndVerify(ca, 'DNS:desk.lan')).toBe('OK');
    expect(signAndVerify(ca, 'DNS:example.com')).toBe('permitted subtree violation');
    expect(signAndVerify(ca, 'IP:192.168.1.20')).toBe('excluded subtree violation');
  });

  it('F2: valid for LAN_CA_VALIDITY_DAYS from now, a CA with one intermediate below it, its key owner-only', () => {
    const before = Date.now();
    const ca = ensureLanCa({ host: '10.0.0.7', ...fresh() });
    const x = new X509Certificate(readFileSync(ca.cert));
    expect(LAN_CA_VALIDITY_DAYS).toBe(30);
    expect(Date.parse(x.validTo) - Date.parse(x.validFrom)).toBe(LAN_CA_VALIDITY_DAYS * DAY_MS);
    expect(Math.abs(Date.parse(x.validFrom) - before)).toBeLessThan(60_000);
    expect(x.ca).toBe(true);
    expect(openssl(['x509', '-in', ca.cert, '-noout', '-ext', 'basicConstraints'])).toMatch(
      /critical\s+CA:TRUE, pathlen:1/,
    );
    expect(statSync(ca.key).mode & 0o777).toBe(0o600);
  });

  it('F2: reused across starts; made again when the address changes or it has less than a day left, and Caddy forgets what it made under the old one', () => {
    const where = fresh();
    const first = ensureLanCa({ host: '10.0.0.7', ...where });
    const pem = readFileSync(first.cert, 'utf8');
    expect(first.issued).toBe(true);
    const again = ensureLanCa({ host: '10.0.0.7', ...where });
    expect([again.issued, readFileSync(again.cert, 'utf8')]).toEqual([false, pem]);

    // Caddy's intermediate and site certificates, signed under the first root.
    const intermediate = path.join(where.caddyData, 'caddy/pki/authorities', LAN_CA_ID);
    const sites = path.join(where.caddyData, 'caddy/certificates');
    const plant = () => {
      for (const d of [intermediate, sites]) {
        mkdirSync(d, { recursive: true });
        writeFileSync(path.join(d, 'x.crt'), 'old');
      }
    };
    plant();
    const moved = ensureLanCa({ host: '10.0.0.8', ...where });
    expect(moved.issued).toBe(true);
    expect(readFileSync(moved.cert, 'utf8')).not.toBe(pem);
    expect([existsSync(intermediate), existsSync(sites)]).toEqual([false, false]);

    const current = readFileSync(moved.cert, 'utf8');
    const validTo = Date.parse(new X509Certificate(current).validTo);
    const stillFits = ensureLanCa({
      host: '10.0.0.8',
      ...where,
      now: () => validTo - LAN_CA_RENEW_BEFORE_MS - 60_000,
    });
    expect(stillFits.issued).toBe(false);
    plant();
    const renewed = ensureLanCa({
      host: '10.0.0.8',
      ...where,
      now: () => validTo - LAN_CA_RENEW_BEFORE_MS + 60_000,
    });
    expect(renewed.issued).toBe(true);
    expect(readFileSync(renewed.cert, 'utf8')).not.toBe(current);
    expect([existsSync(intermediate), existsSync(sites)]).toEqual([false, false]);
    const expired = ensureLanCa({ host: '10.0.0.8', ...where, now: () => validTo + DAY_MS * 40 });
    expect(expired.issued).toBe(true);
  });

  it('F2: a LAN host that is neither an IPv4 address nor a host name is refused before openssl runs (bad-lan-host)', () => {
    for (const host of ['a b', 'x,permitted;DNS:evil.com', '-days', '::1'])
      expect(() => ensureLanCa({ host, ...fresh() }), host).toThrow(
        expect.objectContaining({ code: 'bad-lan-host' }) as Error,
      );
  });
});
