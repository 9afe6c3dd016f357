import { createHash, X509Certificate } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { REPO } from './children.ts';
import { LAN_CA_ID } from './lan-ca.ts';

// deploy/Caddyfile run with Caddy's own local CA (`local_certs`): `npm start -- --lan` puts it in
// front of the app and the relay on the computer's LAN address (P4), and the TLS e2e test on a
// mapped host name (P3). Caddy keeps its CA and certificates under XDG_DATA_HOME, which both
// point at a folder of their own, so nothing touches the user's Caddy or the system trust store.

export const CADDYFILE = path.join(REPO, 'deploy/Caddyfile');

export type CaddySite = {
  /** `host:port` the site answers on (a name or an IP address). */
  address: string;
  /** The built app (dist/). */
  appDir: string;
  /** `127.0.0.1:<port>` of a relay started with `--path /relay`. */
  relayUpstream: string;
  /** Caddy's data and config live here (its CA included). */
  home: string;
  /**
   * F2, `npm start -- --lan`: listen on these addresses only, and issue from the project's own
   * name-constrained CA (scripts/start/lan-ca.ts) instead of Caddy's local one. Without it, the
   * site is the real-domain one (HSTS) on Caddy's local CA (the TLS e2e suite).
   */
  lan?: { bind: string[]; caCert: string; caKey: string };
};

/** Global options for a local CA: never ACME, never the system trust store, no admin port, no
 * plain-http listener (the site is https only). */
const LOCAL_OPTIONS = [
  'local_certs',
  'skip_install_trust',
  'admin off',
  'auto_https disable_redirects',
].join('\n');

/** F2: the `dsh_lan` CA with the project's own root; Caddy keeps its intermediate under it. */
const lanOptions = (caCert: string, caKey: string) =>
  [
    'skip_install_trust',
    'admin off',
    'auto_https disable_redirects',
    'pki {',
    `ca ${LAN_CA_ID} {`,
    'name "dsh-dispatch LAN"',
    'root {',
    'format pem_file',
    `cert "${caCert}"`,
    `key "${caKey}"`,
    '}',
    '}',
    '}',
  ].join('\n');

export const caddyData = (home: string) => path.join(home, 'data');

export function caddyRun(site: CaddySite): {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
} {
  return {
    command: caddyBinary() ?? 'caddy',
    args: ['run', '--config', CADDYFILE, '--adapter', 'caddyfile'],
    env: {
      HOME: site.home,
      XDG_DATA_HOME: caddyData(site.home),
      XDG_CONFIG_HOME: path.join(site.home, 'config'),
      DSH_DOMAIN: site.address,
      DSH_APP_DIR: site.appDir,
      DSH_RELAY_UPSTREAM: site.relayUpstream,
      ...(site.lan
        ? {
            DSH_SITE: 'lan',
            DSH_BIND: [...new Set(site.lan.bind)].join(' '),
            DSH_CADDY_OPTIONS: lanOptions(site.lan.caCert, site.lan.caKey),
          }
        : { DSH_CADDY_OPTIONS: LOCAL_OPTIONS }),
    },
  };
}

const pki = (home: string, file: string) =>
  path.join(home, 'data/caddy/pki/authorities/local', file);
/** The local CA's root: what a phone installs, what Node is told to trust. */
export const caddyRootCert = (home: string) => pki(home, 'root.crt');
/** The intermediate that signs the site certificates (Caddy sends it; not the root). */
export const caddyIntermediateCert = (home: string) => pki(home, 'intermediate.crt');

/** Base64 SHA-256 of a certificate's public key (SPKI): Chromium's
 * `--ignore-certificate-errors-spki-list` pins exactly this key, nothing else. */
export function spkiSha256(pemFile: string): string {
  const der = new X509Certificate(readFileSync(pemFile)).publicKey.export({
    type: 'spki',
    format: 'der',
  });
  return createHash('sha256').update(der).digest('base64');
}

/** SHA-256 fingerprint as phones show it (AA:BB:…), to compare after a download. */
export const certFingerprint = (pemFile: string) =>
  new X509Certificate(readFileSync(pemFile)).fingerprint256;

/** The `caddy` binary: DSH_CADDY_BIN, else the first on PATH; null when there is none. */
export function caddyBinary(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = env.DSH_CADDY_BIN
    ? [env.DSH_CADDY_BIN]
    : (env.PATH ?? '').split(path.delimiter).map((d) => path.join(d, 'caddy'));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * GET `https://<address><target>` trusting only `caRoot`, connecting to `connectTo` (the name in
 * the address may not resolve here): resolves with the status once the site answers over TLS.
 */
export function httpsGet(
  address: string,
  target: string,
  caRoot: string,
  connectTo = '127.0.0.1',
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  const url = new URL(`https://${address}`);
  return new Promise((resolve, reject) => {
    const req = https.get(
      {
        host: connectTo,
        port: Number(url.port || 443),
        path: target,
        servername: /^[\d.]+$/.test(url.hostname) ? undefined : url.hostname,
        headers: { host: url.host },
        // The certificate is checked against the servername (or the IP address) as usual.
        ca: readFileSync(caRoot),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error(`no answer from https://${address}`)));
  });
}
