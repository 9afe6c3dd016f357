// P1/P2: the two files a real deployment copies. deploy/Caddyfile is adapted by the real Caddy
// and must carry exactly the production policy of scripts/security-headers.ts, the PWA caching
// and a private /relay/metrics; deploy/dsh-relay.service must pass `systemd-analyze verify` and
// keep the hardening it promises.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../relay/config.ts';
import { CADDYFILE, caddyBinary } from './start/caddy.ts';
import { REPO } from './start/children.ts';
import { PING_INTERVAL_MS } from '../protocol/index.ts';
import { OTHER_HEADERS, PRODUCTION_CSP, STRICT_TRANSPORT_SECURITY } from './security-headers.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'dsh-deploy-files-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Server = {
  listen: string[];
  routes: Route[];
  read_header_timeout?: number;
  idle_timeout?: number;
};
type Route = { match?: unknown[]; handle?: Handler[]; group?: string };
type Handler = {
  handler: string;
  routes?: Route[];
  response?: { set?: Record<string, string[]> };
} & Record<string, unknown>;

/** Caddy's own JSON for the Caddyfile, with DSH_DOMAIN set as a deployment would (and `extra`
 * as npm start -- --lan adds). */
function adapted(extra: Record<string, string> = {}): string {
  const caddy = caddyBinary();
  if (caddy === null) throw new Error('caddy is not installed (apt-get install -y caddy)');
  return execFileSync(caddy, ['adapt', '--config', CADDYFILE, '--adapter', 'caddyfile'], {
    env: {
      ...process.env,
      HOME: tmp,
      XDG_DATA_HOME: tmp,
      XDG_CONFIG_HOME: tmp,
      DSH_DOMAIN: 'dispatch.example.com',
      ...extra,
    },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

/** Every handler in the config, with the path matchers of the routes above it. */
function handlers(routes: Route[], paths: string[] = []): Array<{ h: Handler; paths: string[] }> {
  const out: Array<{ h: Handler; paths: string[] }> = [];
  for (const r of routes) {
    const here = JSON.stringify(r.match ?? []);
    const p = here === '[]' ? paths : [...paths, here];
    for (const h of r.handle ?? []) {
      out.push({ h, paths: p });
      if (h.routes) out.push(...handlers(h.routes, p));
    }
  }
  return out;
}

const serverOf = (json: string) =>
  Object.values(
    (JSON.parse(json) as { apps: { http: { servers: Record<string, Server> } } }).apps.http.servers,
  )[0]!;
const NS_PER_MS = 1_000_000;

describe('P1/P2: deploy/Caddyfile as Caddy reads it', () => {
  const config = JSON.parse(adapted()) as unknown;
  const server = serverOf(adapted());
  const all = handlers(server.routes);
  const headerSets = all.filter((x) => x.h.handler === 'headers');

  it('serves DSH_DOMAIN over https with automatic certificates (no ACME or CA options baked in)', () => {
    expect(server.listen).toEqual([':443']);
    expect(JSON.stringify(server.routes[0]?.match)).toBe('[{"host":["dispatch.example.com"]}]');
    expect(JSON.stringify(config)).not.toMatch(/"internal"|install_trust/);
  });
  it('P2: the production policy and the other headers on every response, exactly as in scripts/security-headers.ts', () => {
    const site = headerSets.find(
      (x) => x.paths.length === 1 && x.h.response?.set?.['Content-Security-Policy'],
    )!.h.response!.set!;
    expect(site['Content-Security-Policy']).toEqual([PRODUCTION_CSP]);
    for (const [name, value] of Object.entries(OTHER_HEADERS)) expect(site[name]).toEqual([value]);
    expect(PRODUCTION_CSP).not.toMatch(/unsafe|ws:\/\/|http:/);
    expect(site['Cross-Origin-Opener-Policy']).toEqual(['same-origin']);
  });
  it('F5: a real domain sends HSTS (scripts/security-headers.ts) on every response; the LAN site of npm start -- --lan never does', () => {
    const hsts = (h: Handler[]) =>
      h
        .filter((x) => x.handler === 'headers')
        .flatMap((x) => x.response?.set?.['Strict-Transport-Security'] ?? []);
    const siteLevel = (s: Server) =>
      handlers(s.routes)
        .filter((x) => x.paths.length === 1)
        .map((x) => x.h);
    expect(hsts(siteLevel(server))).toEqual([STRICT_TRANSPORT_SECURITY]);
    const lan = serverOf(adapted({ DSH_SITE: 'lan', DSH_BIND: '192.168.1.20 127.0.0.1' }));
    expect(hsts(handlers(lan.routes).map((x) => x.h))).toEqual([]);
    // …while the rest of the policy, COOP included, is the same there.
    const lanSite = handlers(lan.routes).find(
      (x) => x.h.handler === 'headers' && x.h.response?.set?.['Content-Security-Policy'],
    )!.h.response!.set!;
    for (const [name, value] of Object.entries(OTHER_HEADERS))
      expect(lanSite[name]).toEqual([value]);
  });
  it('F3: before an upgrade a client has 10 s to send its headers (the relay\u2019s own cap); idle limits sit above the relay\u2019s 25 s ping; pooled connections end before the relay\u2019s keep-alive does', () => {
    expect(server.read_header_timeout).toBe(DEFAULT_SETTINGS.headersTimeoutMs * NS_PER_MS);
    expect(server.idle_timeout).toBeGreaterThan(PING_INTERVAL_MS * NS_PER_MS);
    const proxy = all.find((x) => x.h.handler === 'reverse_proxy')!.h as {
      transport?: { read_timeout?: number; keep_alive?: { idle_timeout?: number } };
    };
    expect(proxy.transport?.read_timeout).toBeGreaterThan(PING_INTERVAL_MS * NS_PER_MS);
    // P8: Caddy lets go of an idle pooled connection before the relay closes it.
    expect(proxy.transport?.keep_alive?.idle_timeout).toBeLessThan(
      DEFAULT_SETTINGS.keepAliveTimeoutMs * NS_PER_MS,
    );
    expect(PING_INTERVAL_MS).toBe(25_000);
  });
  it('P2: hashed assets immutable for a year, everything else (index.html, sw.js, manifest) revalidated', () => {
    const cache = headerSets
      .filter((x) => x.h.response?.set?.['Cache-Control'])
      .map((x) => [x.paths.at(-1), x.h.response!.set!['Cache-Control']]);
    expect(cache).toEqual([
      ['[{"path":["/assets/*"]}]', ['public, max-age=31536000, immutable']],
      ['[{"not":[{"path":["/assets/*"]}]}]', ['no-cache']],
    ]);
  });
  it('P1: /relay and /relay/* go to the relay on 127.0.0.1:8787, except /relay/metrics (404)', () => {
    const proxy = all.find((x) => x.h.handler === 'reverse_proxy')!;
    expect(proxy.paths[1]).toBe('[{"path":["/relay","/relay/*"]}]');
    expect(proxy.h.upstreams).toEqual([{ dial: `127.0.0.1:${DEFAULT_SETTINGS.port}` }]);
    const metrics = all.find((x) => x.h.handler === 'static_response')!;
    expect([metrics.paths.at(-1), metrics.h.status_code]).toEqual([
      '[{"path":["/relay/metrics"]}]',
      404,
    ]);
  });
});

describe('P1: deploy/dsh-relay.service', () => {
  const unit = readFileSync(path.join(REPO, 'deploy/dsh-relay.service'), 'utf8');
  const settings = new Map<string, string[]>();
  for (const line of unit.split('\n')) {
    const m = /^(\w+)=(.*)$/.exec(line);
    if (m) settings.set(m[1]!, [...(settings.get(m[1]!) ?? []), m[2]!]);
  }
  const one = (k: string) => settings.get(k)?.[0];
  const env = new Map(
    (settings.get('Environment') ?? []).map((e) => e.split('=', 2) as [string, string]),
  );

  it('is hardened: its own user, no new privileges, read-only system but its data folder, restarts on failure', () => {
    expect(one('DynamicUser')).toBe('yes');
    expect(one('NoNewPrivileges')).toBe('yes');
    expect(one('ProtectSystem')).toBe('strict');
    expect(one('ReadWritePaths')).toBe('/var/lib/dsh-relay');
    expect(env.get('RELAY_DATA_DIR')).toBe('/var/lib/dsh-relay');
    expect(one('Restart')).toBe('on-failure');
    expect(one('CapabilityBoundingSet')).toBe('');
  });
  it('holds more files open than the connection cap, and runs behind the Caddyfile', () => {
    expect(Number(one('LimitNOFILE'))).toBeGreaterThan(Number(env.get('RELAY_MAX_CONNECTIONS')));
    expect(env.get('RELAY_PATH')).toBe('/relay');
    expect(env.get('RELAY_HOST')).toBe('127.0.0.1');
    expect(env.get('RELAY_PORT')).toBe(String(DEFAULT_SETTINGS.port));
    expect(env.get('RELAY_TRUST_PROXY')).toBe('1');
  });
  it('passes systemd-analyze verify (with this machine’s node in ExecStart)', () => {
    const copy = path.join(tmp, 'dsh-relay.service');
    writeFileSync(copy, unit.replace(/^ExecStart=\S+/m, `ExecStart=${process.execPath}`));
    const r = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, '', '']);
  });
});
