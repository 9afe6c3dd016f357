import { describe, expect, it } from 'vitest';
import { MACHINE_BACKOFF } from '../../protocol/index.ts';
import { captureLog } from '../log.ts';
import { makeRelayLink } from './relay-link.ts';
import { until } from '../../testkit/until.ts';
import { WebSocketServer } from 'ws';

// A stand-in relay that speaks just enough of the envelope (hello → hello-ok) and never answers
// pings, to prove the machine's half of "Heartbeat: WebSocket ping/pong at 25s".
describe('Heartbeat: a relay socket that stops answering pings is dropped and re-dialled', () => {
  it('no pong within one ping interval → terminate, reconnect, hello again', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, autoPong: false });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    let hellos = 0;
    wss.on('connection', (sock) => {
      sock.on('message', (data) => {
        const f = JSON.parse(String(data)) as { kind: string };
        if (f.kind === 'hello') {
          hellos++;
          sock.send(JSON.stringify({ kind: 'hello-ok', peers: { machine: 1, phone: 0 } }));
        }
      });
    });
    const port = (wss.address() as { port: number }).port;
    const log = captureLog();
    let ups = 0;
    const link = makeRelayLink({
      url: `ws://127.0.0.1:${port}`,
      roomId: 'room-id-0123456789abcd',
      log,
      random: () => 0,
      profile: MACHINE_BACKOFF,
      pingIntervalMs: 30,
      events: { helloOk: () => ups++, presence() {}, msg() {}, relayError() {}, down() {} },
    });
    try {
      await until(() => hellos >= 2 && ups >= 2, 'a second hello after the ping timeout');
      expect(log.lines.some((l) => l.code === 'relay-ping-timeout')).toBe(true);
      expect(log.lines.some((l) => l.code === 'relay-disconnected')).toBe(true);
    } finally {
      await link.close();
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    }
  });
});
