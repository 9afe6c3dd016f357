import path from 'node:path';
import { caddyRootCert, caddyRun, httpsGet } from './caddy.ts';
import { REPO, startPart, type Part } from './children.ts';
import { StartError, type StartConfig } from './config.ts';
import { serveRootCert } from './lan.ts';

// P4: `npm start -- --lan` puts deploy/Caddyfile, run by Caddy with its own CA, in front of the
// built app and the relay on the LAN address, and serves the CA's root for the phone.

/** The relay's base path behind Caddy (deploy/Caddyfile proxies /relay). */
export const RELAY_PATH = '/relay';
const READY_TIMEOUT_MS = 60_000;
const POLL_MS = 100;

export type Lan = { host: string; address: string; home: string; caUrl: string; root: string };

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
  const run = caddyRun({
    address,
    appDir: path.join(REPO, 'dist'),
    relayUpstream: `127.0.0.1:${relayPort}`,
    home,
  });
  const caddy = watch(
    startPart('caddy', [run.command, run.args], {
      env: run.env,
      // Caddy logs JSON lines; its errors are worth a person's attention, its notes are not
      // (admin off, no OCSP for a local CA, redirects off: all as configured).
      quiet: /"level":"(debug|info|warn)"/,
    }),
  );
  const root = caddyRootCert(home);
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
  const ca = await serveRootCert(host, config.lanCaPort, root);
  return { host, address, home, caUrl: ca.url, root };
}
