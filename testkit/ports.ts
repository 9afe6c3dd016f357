import net from 'node:net';

/**
 * A loopback port nobody listens on now (a throwaway listener on port 0), for a program that
 * cannot be told `--port 0` (redis-server, `npm start`'s fixed ports). Another process may take
 * it before the caller binds it; only a test that must name a port up front uses this.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * `count` distinct free loopback ports: every throwaway listener stays open until all are
 * taken, so the kernel cannot hand out one port twice (two `freePort()` calls in a row can).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const s = net.createServer();
      servers.push(s);
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return servers.map((s) => (s.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
}
