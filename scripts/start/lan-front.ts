import path from 'node:path';
import { caddyData, caddyRun, httpsGet } from './caddy.ts';
import { REPO, startPart, type Part } from './children.ts';
import { StartError, type StartConfig } from './config.ts';
import { serveRootCert } from './lan.ts';
import { ensureLanCa } from './lan-ca.ts';

// P4: `npm start -- --lan` puts deploy/Caddyfile, run by Caddy, in front of the built app and the
// relay on the LAN address, and serves the CA's root for the phone. F2: Caddy listens on the LAN
// address and loopback only, and its certificates come from the project's own CA, name-constrained
// to that address and short-lived (lan-ca.ts), kept in the data folder across starts.

/** The relay's base path behind Caddy (deploy/Caddyfile proxies /relay). */
export const RELAY_PATH = '/relay';
const READY_TIMEOUT_MS = 60_000;
const POLL_MS = 100;

export type Lan = {
  host: string;
  address: string;
  home: string;
  caUrl: string;
  root: string;
  /** The CA was made by this start (the phone must install it again). */
  caIssued: boolean;
};

/** Caddy on the LAN address in front of the app (dist/) and the relay; the CA root download. */
export async function startLanFront(o: {
  config: StartConfig;
  host: string;
  relayPort: number;
  /** The start script's bookkeeping: every part it watches is stopped with the rest. */
  watch: (part: Part) => Part;
  stopping: () => boolean;
}): Promise<Lan> {
  const { config, host, relayPort, watch } = o;
  const address = `${host}:${config.lanPort}`;
  const home = path.join(config.dataDir, 'caddy');
  const ca = ensureLanCa({ dir: path.join(home, 'lan-ca'), host, caddyData: caddyData(home) });
  const run = caddyRun({
    address,
    appDir: path.join(REPO, 'dist'),
    relayUpstream: `127.0.0.1:${relayPort}`,
    home,
    lan: { bind: [host, '127.0.0.1'], caCert: ca.cert, caKey: ca.key },
  });
  const caddy = watch(
    startPart('caddy', [run.command, run.args], {
      env: run.env,
      // Caddy logs JSON lines; its errors are worth a person's attention, its notes are not
      // (admin off, no OCSP for a local CA, redirects off: all as configured).
      quiet: /"level":"(debug|info|warn)"/,
    }),
  );
  const root = ca.cert;
  const end = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const ok = await httpsGet(address, `${RELAY_PATH}/healthz`, root, host).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (o.stopping()) throw new StartError('start-failed', 'stopped while Caddy was starting');
    if (Date.now() > end || caddy.child.exitCode !== null)
      throw new StartError('caddy-not-ready', `Caddy did not answer on https://${address}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const download = await serveRootCert(host, config.lanCaPort, root);
  return { host, address, home, caUrl: download.url, root, caIssued: ca.issued };
}
