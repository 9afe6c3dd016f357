// P3: the path every real user takes, on this machine: deploy/Caddyfile run by a real Caddy with
// its local CA on a host name (dsh.test) mapped to 127.0.0.1, serving dist/ and proxying /relay
// to a relay started with --path /relay. Chromium trusts the CA's intermediate by its key
// (--ignore-certificate-errors-spki-list pins that one key; no certificate error is ignored
// otherwise); Node children trust its root through NODE_EXTRA_CA_CERTS.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ClientOptions } from 'ws';
import {
  caddyIntermediateCert,
  caddyRootCert,
  caddyRun,
  httpsGet,
  spkiSha256,
} from '../../scripts/start/caddy.ts';
import { freePort } from '../../testkit/ports.ts';
import { startProcess as startTestProcess } from '../../testkit/process.ts';
import { startProcess, type Proc } from './processes.ts';

export const TLS_HOST = 'dsh.test';
const REPO = path.resolve(import.meta.dirname, '../..');
const READY_LIMIT_MS = 20_000;
const POLL_MS = 100;

export type TlsSite = {
  origin: string;
  /** `wss://dsh.test:<port>/relay`, what the machine dials and the pairing code carries. */
  relayUrl: string;
  rootCert: string;
  /** Chromium flags that resolve and trust the site. */
  browserArgs: string[];
  /** Environment for a Node child (the machine) that must reach and trust the site. */
  nodeEnv: Record<string, string>;
  /** `ws` options for the test's own sockets to the relay through the site. */
  wsOptions: ClientOptions;
  get(target: string): ReturnType<typeof httpsGet>;
  relay: Proc;
  close(): Promise<void>;
};

/** Resolves every name to 127.0.0.1 (the test's own sockets dial only the site). */
const loopback: LookupFunction = (_host, options, callback) => {
  if (options.all)
    (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
      { address: '127.0.0.1', family: 4 },
    ]);
  else callback(null, '127.0.0.1', 4);
};

export async function startTlsSite(relayArgs: string[]): Promise<TlsSite> {
  const home = mkdtempSync(path.join(tmpdir(), 'dsh-e2e-caddy-'));
  const cleanups: Array<() => Promise<void> | void> = [
    () => rmSync(home, { recursive: true, force: true }),
  ];
  const close = async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  };
  try {
    const relay = startProcess('relay', 'relay/main.ts', [
      ...['--host', '127.0.0.1', '--port', '0', '--path', '/relay', '--log-level', 'warn'],
      ...['--data-dir', path.join(home, 'relay'), '--trust-proxy'],
      ...relayArgs,
    ]);
    cleanups.push(() => relay.stop());
    const relayPort = Number(
      (await relay.waitForLine(/relay listening on ws:\/\/[\d.]+:(\d+)\/relay$/))[1],
    );

    const port = await freePort();
    const address = `${TLS_HOST}:${port}`;
    const run = caddyRun({
      address,
      appDir: path.join(REPO, 'dist'),
      relayUpstream: `127.0.0.1:${relayPort}`,
      home,
    });
    const caddy = startTestProcess('caddy', run.command, run.args, {
      env: run.env,
      closeStdin: true,
    });
    cleanups.push(async () => void (await caddy.stop()));

    // Caddy makes its CA and the site's certificate on start: ready once the site answers over
    // TLS with a chain to that root (bounded).
    const root = caddyRootCert(home);
    const log = () => caddy.lines.slice(-40).join('\n');
    const deadline = Date.now() + READY_LIMIT_MS;
    for (;;) {
      if (caddy.hasExited()) throw new Error(`caddy exited:\n${log()}`);
      const answered =
        existsSync(root) &&
        (await httpsGet(address, '/relay/healthz', root).then(
          (r) => r.status === 200,
          () => false,
        ));
      if (answered) break;
      if (Date.now() > deadline)
        throw new Error(`caddy not ready in ${READY_LIMIT_MS} ms:\n${log()}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }

    const mapHost = path.join(REPO, 'e2e/support/map-host.mjs');
    return {
      origin: `https://${address}`,
      relayUrl: `wss://${address}/relay`,
      rootCert: root,
      browserArgs: [
        `--host-resolver-rules=MAP ${TLS_HOST} 127.0.0.1`,
        `--ignore-certificate-errors-spki-list=${spkiSha256(caddyIntermediateCert(home))}`,
      ],
      nodeEnv: {
        NODE_EXTRA_CA_CERTS: root,
        NODE_OPTIONS: `--import=${mapHost}`,
        DSH_E2E_MAP_HOST: TLS_HOST,
      },
      // `lookup` reaches net.connect through https.request's options (ws's types omit it).
      wsOptions: { ca: [readFileSync(root)], lookup: loopback } as ClientOptions,
      get: (target) => httpsGet(address, target, root),
      relay,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
