import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { encodeFrame, parsePairing, roomKeys } from '../protocol/index.ts';
import { httpsGet } from './start/caddy.ts';
import { START_ENV } from './start/config.ts';
import { OTHER_HEADERS, PRODUCTION_CSP } from './security-headers.ts';
import { LAN_CA_VALIDITY_DAYS } from './start/lan-ca.ts';
import { freePorts } from '../testkit/ports.ts';
import { alive, npmStart, npmStartRefused } from './test-support/npm-start.ts';

// P4: `npm start -- --lan` on loopback: the LAN address is 127.0.0.1 here (DSH_LAN_HOST), and
// everything a phone would do is done over real sockets — download the CA root over plain http,
// trust only it, open the app and the relay through Caddy over TLS.

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dsh-start-lan-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The local addresses with a TCP socket listening on `port` (Linux: /proc/net/tcp and tcp6). */
function listeningOn(port: number): string[] {
  const out: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== '0A' || !local) continue; // 0A: LISTEN
      const [hex, p] = local.split(':');
      if (Number.parseInt(p!, 16) !== port) continue;
      out.push(
        hex!.length === 8
          ? Buffer.from(hex!, 'hex').reverse().join('.')
          : hex === '0'.repeat(32)
            ? '::'
            : `ipv6:${hex}`,
      );
    }
  }
  return out.sort();
}

describe('P4: the phone on the LAN in one command', () => {
  it('P4: without Caddy, --lan says how to install it and exits before starting anything', async () => {
    const r = await npmStartRefused(
      { [START_ENV.dataDir]: dataDir, DSH_CADDY_BIN: path.join(dataDir, 'no-caddy-here') },
      ['--lan'],
    );
    expect(r.code).toBe(1);
    expect(r.output).toMatch(
      /^\[start\] --lan puts Caddy in front .* sudo apt-get install -y caddy.* \[caddy-missing\]$/m,
    );
    expect(r.tree).toEqual([]);
  });

  it('P4, F2: --lan puts Caddy, on the LAN address only and with the project’s own name-constrained, short-lived CA, in front of the app and the relay; the phone downloads the root (QR, link, Android and iOS steps), then pairs with https://<lan address>/#pair=…', async () => {
    const [relay, app, lane, lan, ca] = await freePorts(5);
    const ports = { relay: relay!, app: app!, lane: lane!, lan: lan!, ca: ca! };
    const env = {
      [START_ENV.dataDir]: dataDir,
      [START_ENV.relayPort]: String(ports.relay),
      [START_ENV.appPort]: String(ports.app),
      [START_ENV.lanePort]: String(ports.lane),
      [START_ENV.lanPort]: String(ports.lan),
      [START_ENV.lanCaPort]: String(ports.ca),
      [START_ENV.lanHost]: '127.0.0.1',
    };
    const started = await npmStart(env, ['--lan']);
    try {
      const out = started.output();
      const caUrl = `http://127.0.0.1:${ports.ca}/dsh-dispatch-local-ca.crt`;
      expect(out).toContain(`CA certificate: ${caUrl}`);
      expect(out).toMatch(/Android: Settings → Security/);
      expect(out).toMatch(/iPhone: {2}open it in Safari/);
      // Two QR codes: the CA download, then the pairing link.
      expect(out.match(/▄▄▄▄▄▄▄/g)?.length ?? 0).toBeGreaterThanOrEqual(2);

      // The phone downloads the root over plain http and checks the fingerprint it was shown.
      const download = await fetch(caUrl);
      expect(download.headers.get('content-type')).toBe('application/x-x509-ca-cert');
      const pem = await download.text();
      const root = path.join(dataDir, 'downloaded-root.crt');
      writeFileSync(root, pem);
      const fingerprint = new X509Certificate(pem).fingerprint256;
      expect(out).toContain(`SHA-256 fingerprint (compare on the phone): ${fingerprint}`);
      expect((await fetch(`http://127.0.0.1:${ports.ca}/other`)).status).toBe(404);

      // Trusting only that root: the app and the relay over TLS on the LAN address.
      const lan = `127.0.0.1:${ports.lan}`;
      const app = await httpsGet(lan, '/', root);
      expect(app.status).toBe(200);
      expect(app.headers['content-security-policy']).toBe(PRODUCTION_CSP);
      // F5: the whole policy (COOP included), and no HSTS on a LAN site.
      for (const [name, value] of Object.entries(OTHER_HEADERS))
        expect(app.headers[name.toLowerCase()], name).toBe(value);
      expect(app.headers['strict-transport-security']).toBeUndefined();

      // F2: Caddy listens on the LAN address (and loopback, the same here) only — never on
      // every interface.
      expect(listeningOn(ports.lan)).toEqual(['127.0.0.1']);
      // F2: the root the phone installs is the project's own: constrained to the LAN address,
      // valid for LAN_CA_VALIDITY_DAYS from now.
      expect(
        execFileSync('openssl', ['x509', '-in', root, '-noout', '-ext', 'nameConstraints'], {
          encoding: 'utf8',
        }),
      ).toMatch(/critical\s+Permitted:\s+IP:127\.0\.0\.1\/255\.255\.255\.255\s+DNS:invalid/);
      const ca = new X509Certificate(pem);
      expect(ca.subject).toBe('CN=dsh-dispatch LAN CA for 127.0.0.1');
      expect(Date.parse(ca.validTo) - Date.parse(ca.validFrom)).toBe(
        LAN_CA_VALIDITY_DAYS * 24 * 60 * 60 * 1000,
      );
      expect(out).toContain('It is valid for 127.0.0.1 only, until ');
      expect(out).toContain('This start made a new CA: install it on the phone');
      expect(await httpsGet(lan, '/relay/healthz', root)).toMatchObject({ status: 200 });

      // The pairing link and code name the https app and the wss relay on that address.
      const code = readFileSync(path.join(dataDir, 'machine/pairing-code.txt'), 'utf8').trim();
      expect(out).toContain(`Pairing link: https://${lan}/#pair=${code}`);
      const pairing = parsePairing(code);
      expect(pairing.ok && pairing.value.relay).toBe(`wss://${lan}/relay`);
      // …where the machine is: a phone joining the room through Caddy finds it there.
      if (!pairing.ok) throw new Error(pairing.message);
      const { roomId } = roomKeys(pairing.value.secretBytes);
      const ws = new WebSocket(`wss://${lan}/relay`, { ca: [readFileSync(root)] });
      const helloOk = await new Promise<string>((resolve, reject) => {
        ws.once('open', () => ws.send(encodeFrame({ kind: 'hello', room: roomId, role: 'phone' })));
        ws.once('message', (d) => resolve(String(d)));
        ws.once('error', reject);
      });
      ws.close();
      expect(JSON.parse(helloOk)).toMatchObject({ kind: 'hello-ok', peers: { machine: 1 } });
      // The CA lives in the data folder, so the phone installs it once for every later start
      // while it is valid (scripts/start/lan-ca.test.ts "F2: reused across starts; …").
      expect(createHash('sha256').update(pem).digest('hex')).toBe(
        createHash('sha256')
          .update(readFileSync(path.join(dataDir, 'caddy/lan-ca/root.crt')))
          .digest('hex'),
      );
    } finally {
      const { code, tree } = await started.interrupt();
      expect(code).toBe(0);
      expect(tree.filter(alive)).toEqual([]);
    }
  }, 300_000);
});
