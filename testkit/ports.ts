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
