import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import path from 'node:path';
import { StartError } from './config.ts';

// F2: the CA `npm start -- --lan` asks a phone to trust. Caddy's own local CA is valid for ten
// years for any name: a copy of its key would let its holder impersonate every site to that
// phone for a decade. This one is made here with openssl (Caddy 2.6 cannot constrain its CA) and
// handed to Caddy as the root of its `dsh_lan` CA (deploy/Caddyfile):
// - name-constrained (critical) to the one LAN address or name it serves: an IP address permits
//   exactly that /32 and no DNS name but under `invalid` (RFC 6761: none exists); a name permits
//   that name (and names under it) and excludes every IP address;
// - valid for LAN_CA_VALIDITY_DAYS (README "Using it from a real phone…" says why that long);
// - reused by every start while it has more than LAN_CA_RENEW_BEFORE_MS left and was made for
//   the same address; otherwise made again (the phone then installs the new one).

export const LAN_CA_VALIDITY_DAYS = 30;
/** Re-issued this long before it expires, so a session never runs into the end of its CA. */
export const LAN_CA_RENEW_BEFORE_MS = 24 * 60 * 60 * 1000;
/** The CA's id in Caddy's `pki` app (deploy/Caddyfile's `lan` snippet names it). */
export const LAN_CA_ID = 'dsh_lan';
const SUBJECT_PREFIX = 'dsh-dispatch LAN CA for ';
/** A LAN name as it may appear in a certificate (and in openssl's arguments: nothing else). */
const DNS_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export type LanCa = {
  /** The root certificate (PEM): what the phone downloads and installs. */
  cert: string;
  key: string;
  /** True when this start made it (a new one for the phone to install). */
  issued: boolean;
};

/** openssl's nameConstraints value for `host`. */
export function nameConstraints(host: string): string {
  if (isIPv4(host)) return `critical,permitted;IP:${host}/255.255.255.255,permitted;DNS:invalid`;
  if (!DNS_NAME.test(host))
    throw new StartError('bad-lan-host', `${host} is neither an IPv4 address nor a host name`);
  return `critical,permitted;DNS:${host},excluded;IP:0.0.0.0/0.0.0.0,excluded;IP:::/::`;
}

/** The CA for `host` in `dir`: the one there if it still fits, else a new one. */
export function ensureLanCa(o: {
  dir: string;
  host: string;
  /** Caddy's data folder: a new root invalidates the intermediate and certificates it keeps. */
  caddyData: string;
  now?: () => number;
  openssl?: string;
}): LanCa {
  const now = o.now ?? Date.now;
  const cert = path.join(o.dir, 'root.crt');
  const key = path.join(o.dir, 'root.key');
  const constraints = nameConstraints(o.host);
  if (existsSync(cert) && existsSync(key)) {
    const x = new X509Certificate(readFileSync(cert));
    const fits =
      x.subject === `CN=${SUBJECT_PREFIX}${o.host}` &&
      Date.parse(x.validTo) - now() > LAN_CA_RENEW_BEFORE_MS &&
      Date.parse(x.validFrom) <= now();
    if (fits) return { cert, key, issued: false };
  }
  mkdirSync(o.dir, { recursive: true, mode: 0o700 });
  const next = (f: string) => `${f}.next`;
  try {
    execFileSync(
      o.openssl ?? 'openssl',
      [
        ...['req', '-x509', '-new', '-nodes', '-sha256'],
        ...['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
        ...['-keyout', next(key), '-out', next(cert)],
        ...['-days', String(LAN_CA_VALIDITY_DAYS)],
        ...['-subj', `/CN=${SUBJECT_PREFIX}${o.host}`],
        // One intermediate below it: Caddy's own, which signs the site's certificates (Caddy
        // 2.6's sign_with_root fails with a root of one's own).
        ...['-addext', 'basicConstraints=critical,CA:TRUE,pathlen:1'],
        ...['-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
        ...['-addext', `nameConstraints=${constraints}`],
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OPENSSL_CONF: '/dev/null' } },
    );
  } catch (e) {
    rmSync(next(key), { force: true });
    rmSync(next(cert), { force: true });
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new StartError(
      'lan-ca-failed',
      missing
        ? '--lan makes its own CA with openssl, and openssl is not installed (sudo apt-get install -y openssl)'
        : `openssl could not make the LAN CA: ${String((e as { stderr?: unknown }).stderr ?? e).trim()}`,
    );
  }
  // Owner-only, and the key first: a cert is never left beside another cert's key.
  chmodSync(next(key), 0o600);
  renameSync(next(key), key);
  renameSync(next(cert), cert);
  // What Caddy made under the old root (its intermediate, the site's certificates) chains to a
  // root the phone no longer has.
  rmSync(path.join(o.caddyData, 'caddy/pki/authorities', LAN_CA_ID), {
    recursive: true,
    force: true,
  });
  rmSync(path.join(o.caddyData, 'caddy/certificates'), { recursive: true, force: true });
  return { cert, key, issued: true };
}
