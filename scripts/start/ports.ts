import net from 'node:net';
import { START_ENV, type StartConfig } from './config.ts';

// P4: before anything starts, every port npm start will listen on is tried. A taken one is
// reported in one line that names the variable moving it and a port that is free now, instead
// of the part's own stack trace halfway through the start.

export type PortUse = {
  /** What listens there, as the user knows it ("the app", "the relay"). */
  what: string;
  host: string;
  port: number;
  /** The environment variable that moves it. */
  variable: string;
};

export const PORT_TAKEN = 'port-taken';
const SUGGEST_WITHIN = 50;

/** Whether `host:port` can be listened on right now (tried for real, then released). */
export function isFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ host, port, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** The first free port above `port` that no other part uses (bounded), or null. */
async function nextFree(use: PortUse, others: ReadonlySet<number>): Promise<number | null> {
  for (let p = use.port + 1; p <= Math.min(65_535, use.port + SUGGEST_WITHIN); p++)
    if (!others.has(p) && (await isFree(use.host, p))) return p;
  return null;
}

/** One line per taken port ([] when all are free). */
export async function takenPorts(uses: readonly PortUse[]): Promise<string[]> {
  const lines: string[] = [];
  const planned = new Set(uses.map((u) => u.port));
  for (const u of uses) {
    if (await isFree(u.host, u.port)) continue;
    const free = await nextFree(u, planned);
    const move = free === null ? `${u.variable}=<port>` : `${u.variable}=${free}`;
    lines.push(
      `port ${u.port} (${u.what}) is already in use: stop what holds it, or move it with ${move} npm start`,
    );
  }
  return lines;
}

/** Every port this start will listen on, with the variable that moves it. */
export function portUses(config: StartConfig, lanHost: string | null): PortUse[] {
  const uses: PortUse[] = [
    { what: 'the relay', host: '127.0.0.1', port: config.relayPort, variable: START_ENV.relayPort },
    { what: 'the app', host: '127.0.0.1', port: config.appPort, variable: START_ENV.appPort },
    {
      what: 'the device lane',
      host: '127.0.0.1',
      port: config.lanePort,
      variable: START_ENV.lanePort,
    },
  ];
  if (lanHost !== null) {
    // Caddy listens on every interface for its site's port.
    uses.push({
      what: 'Caddy',
      host: '0.0.0.0',
      port: config.lanPort,
      variable: START_ENV.lanPort,
    });
    uses.push({
      what: 'the CA download',
      host: lanHost,
      port: config.lanCaPort,
      variable: START_ENV.lanCaPort,
    });
  }
  return uses;
}
