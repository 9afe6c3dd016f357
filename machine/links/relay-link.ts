import { WebSocket } from 'ws';
import {
  backoffDelayMs,
  encodeFrame,
  isErrorState,
  MACHINE_BACKOFF,
  MAX_TRANSPORT_BYTES,
  parseServerFrame,
  PING_INTERVAL_MS,
  type BackoffProfile,
  type HelloOkFrame,
  type PresenceFrame,
  type RelayErrorFrame,
} from '../../protocol/index.ts';
import type { Log } from '../log.ts';
import { realTimers, type Timers } from '../timers.ts';
import { MAX_QUEUED_FRAMES, makeSendPacer, type SendOptions } from './send-pacer.ts';

// The machine's socket to the relay: hello as `machine`, ping every 25 s (a socket that misses a
// pong is dead), reconnect with jittered backoff 0.5 s → 30 s; after 10 consecutive failures a
// visible error state and retries every 60 s. A connection counts as working once hello-ok came.

export type RelayLinkEvents = {
  helloOk(frame: HelloOkFrame): void;
  presence(frame: PresenceFrame): void;
  msg(payload: string): void;
  relayError(frame: RelayErrorFrame): void;
  down(): void;
};

export type RelayLinkState = {
  connected: boolean;
  consecutiveFailures: number;
  errorState: boolean;
};

export type RelayLink = {
  /** Paced under D3; E10.1: `card` goes ahead of every other frame, `replaces` coalesces. */
  send(text: string, options?: SendOptions): boolean;
  /** E6: a retired room's link keeps its socket (and queued frames) but answers to new events. */
  retarget(events: RelayLinkEvents): void;
  state(): RelayLinkState;
  close(): Promise<void>;
};

export function makeRelayLink(options: {
  url: string;
  roomId: string;
  events: RelayLinkEvents;
  log: Log;
  random?: () => number;
  profile?: BackoffProfile;
  pingIntervalMs?: number;
  sendRatePerS?: number;
  sendBurst?: number;
  timers?: Timers;
}): RelayLink {
  const { url, roomId, log } = options;
  let events = options.events;
  const random = options.random ?? Math.random;
  const profile = options.profile ?? MACHINE_BACKOFF;
  const pingMs = options.pingIntervalMs ?? PING_INTERVAL_MS;
  let ws: WebSocket | null = null;
  let connected = false;
  let failures = 0;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let pinger: NodeJS.Timeout | undefined;
  const pacer = makeSendPacer({
    timers: options.timers ?? realTimers(),
    canWrite: () => ws !== null && connected && ws.readyState === WebSocket.OPEN,
    write: (text) => ws!.send(text),
    dropped: () =>
      log(
        'warn',
        'send-queue-full',
        `more than ${MAX_QUEUED_FRAMES} frames waiting; dropped the oldest`,
      ),
    ...(options.sendRatePerS !== undefined ? { ratePerS: options.sendRatePerS } : {}),
    ...(options.sendBurst !== undefined ? { burst: options.sendBurst } : {}),
  });

  function connect(): void {
    if (closed) return;
    const sock = new WebSocket(url, { maxPayload: MAX_TRANSPORT_BYTES, handshakeTimeout: 10_000 });
    ws = sock;
    let alive = true;
    let wasConnected = false;
    sock.on('open', () => {
      sock.send(encodeFrame({ kind: 'hello', room: roomId, role: 'machine' }));
      pinger = setInterval(() => {
        if (!alive) {
          log('warn', 'relay-ping-timeout', 'no pong from the relay; reconnecting');
          sock.terminate();
          return;
        }
        alive = false;
        sock.ping();
      }, pingMs);
    });
    sock.on('pong', () => (alive = true));
    sock.on('message', (data, isBinary) => {
      alive = true;
      if (isBinary) {
        log('warn', 'relay-binary-frame', 'ignored a binary frame from the relay');
        return;
      }
      const parsed = parseServerFrame(data.toString('utf8'));
      if (!parsed.ok) {
        log('warn', `relay-frame-${parsed.code}`, parsed.message);
        return;
      }
      const f = parsed.value;
      switch (f.kind) {
        case 'hello-ok':
          if (!connected) {
            connected = wasConnected = true;
            log('info', 'relay-connected', `connected to ${url}`);
            failures = 0;
          }
          events.helloOk(f);
          pacer.drain();
          break;
        case 'presence':
          if (f.room === roomId) events.presence(f);
          break;
        case 'msg':
          if (f.room === roomId) events.msg(f.payload);
          break;
        case 'error':
          events.relayError(f);
          break;
      }
    });
    sock.on('error', (e) => log('warn', 'relay-socket-error', e.message));
    sock.on('close', () => {
      clearInterval(pinger);
      if (ws === sock) ws = null;
      const hadSession = wasConnected;
      connected = false;
      if (hadSession) events.down();
      if (closed) return;
      if (hadSession) {
        log('warn', 'relay-disconnected', 'lost the relay; reconnecting');
        failures = 0;
      }
      failures += 1;
      if (isErrorState(failures, profile)) {
        log(
          'error',
          'relay-unreachable',
          `cannot reach the relay at ${url} after ${failures} attempts; retrying every ${profile.errorStateRetryMs / 1000} s`,
        );
      }
      retry = setTimeout(connect, backoffDelayMs(failures, random, profile));
    });
  }

  connect();

  return {
    send(text, sendOptions) {
      if (ws === null || !connected || ws.readyState !== WebSocket.OPEN) return false;
      pacer.push(text, sendOptions);
      return true;
    },
    retarget(next) {
      events = next;
    },
    state: () => ({
      connected,
      consecutiveFailures: failures,
      errorState: isErrorState(failures, profile),
    }),
    close() {
      closed = true;
      clearTimeout(retry);
      pacer.close();
      clearInterval(pinger);
      const sock = ws;
      if (sock === null || sock.readyState === WebSocket.CLOSED) return Promise.resolve();
      return new Promise<void>((resolve) => {
        sock.once('close', () => resolve());
        sock.terminate();
      });
    },
  };
}
