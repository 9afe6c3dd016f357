import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';

// P4: the phone on the LAN in one command. The computer's LAN address, the one file a phone
// downloads over plain http (the local CA's root: public by nature, checked by its fingerprint),
// and the words that go with it.

const PRIVATE_V4 = [/^10\./, /^192\.168\./, /^172\.(1[6-9]|2\d|3[01])\./];

/** The first non-internal IPv4 address, private ranges first; null without a network. */
export function lanAddress(
  interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(),
): string | null {
  const v4 = Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((i) => i.family === 'IPv4' && !i.internal)
    .map((i) => i.address);
  return v4.find((a) => PRIVATE_V4.some((r) => r.test(a))) ?? v4[0] ?? null;
}

export const CA_FILE_PATH = '/dsh-dispatch-local-ca.crt';

/** Serves the root certificate, and nothing else, on `host:port`. */
export async function serveRootCert(
  host: string,
  port: number,
  rootFile: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== CA_FILE_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res
      .writeHead(200, {
        // Android and iOS both offer to install a CA certificate served as this type.
        'content-type': 'application/x-x509-ca-cert',
        'content-disposition': 'attachment; filename="dsh-dispatch-local-ca.crt"',
        'cache-control': 'no-store',
      })
      .end(readFileSync(rootFile));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    url: `http://${host}:${port}${CA_FILE_PATH}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** What to do on the phone before the app's link works. */
export function caSteps(fingerprint: string): string[] {
  return [
    'Step 1 — trust this computer on your phone (once): scan this code or open the link, then',
    '  Android: Settings → Security (& privacy) → Encryption & credentials → Install a certificate',
    '           → CA certificate → pick dsh-dispatch-local-ca.crt (search Settings for "CA certificate").',
    '  iPhone:  open it in Safari, Allow → Settings → General → VPN & Device Management → install the',
    '           profile; then General → About → Certificate Trust Settings → turn on full trust for it.',
    `  Its SHA-256 fingerprint (compare on the phone): ${fingerprint}`,
    '  Remove it when you are done (same screens). It vouches for this address only (F2), yet',
    '  whoever holds .data/caddy can impersonate this address to that phone: keep that folder private.',
  ];
}

/** F2: what the CA is good for, and whether the phone must install it (again). */
export function caValidity(rootFile: string, host: string, issued: boolean): string[] {
  const until = new Date(new X509Certificate(readFileSync(rootFile)).validTo).toISOString();
  return [
    `  It is valid for ${host} only, until ${until.slice(0, 16).replace('T', ' ')} UTC; the next start after that makes a new one.`,
    ...(issued
      ? [
          '  This start made a new CA: install it on the phone (and remove an older dsh-dispatch one).',
        ]
      : []),
  ];
}

export const CADDY_MISSING = [
  '--lan puts Caddy in front of the app and the relay, and Caddy is not installed.',
  'Install it (Debian/Ubuntu: sudo apt-get install -y caddy; macOS: brew install caddy),',
  'or point DSH_CADDY_BIN at it, then run npm start -- --lan again.',
].join(' ');
