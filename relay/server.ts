// startRelay: the HTTP routes, the WebSocket upgrade with its caps, the ping loop, and shutdown.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import pino, { type DestinationStream, type Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { MAX_TRANSPORT_BYTES } from '../protocol/index.ts';
import { makeRouter, parseBasePath, ROUTE } from './base-path.ts';
import { DEFAULT_SETTINGS, type RelaySettings } from './config.ts';
import { Connection } from './connection.ts';
import type { Context } from './context.ts';
import {
  countingPushSender,
  LIMITS,
  makeCounters,
  UPGRADE_REFUSALS,
  type RelayCounters,
  type UpgradeRefusal,
} from './counters.ts';
import { ipKey } from './ip.ts';
import { makeLocalPresence, type Presence } from './presence.ts';
import { makePingSweep } from './ping-sweep.ts';
import { makePushServiceFor } from './push.ts';
import { makeLocalPushDecision, type PushDecision } from './push-decision.ts';
import { systemResolve, type Resolve } from './push-endpoint.ts';
import { makeHttpPushSender, type PushSender } from './push-sender.ts';
import { makeLocalRooms, type Rooms } from './rooms.ts';
import { makeIpTag } from './subscribe.ts';
import { makeSubscriptionLife } from './subscription-life.ts';
import { openSqliteSubscriptions, type SubscriptionStore } from './subscriptions.ts';
import { realTimers, type Timers } from './timers.ts';
import { makeEventLoopTurn } from './event-loop-turn.ts';
import { ensureDataDir, loadOrCreateVapidKeys } from './vapid.ts';

const CLOSE_GOING_AWAY = 1001;

export type RelayOptions = Partial<RelaySettings> & {
  timers?: Timers;
  pushSender?: PushSender;
  /** Host name → addresses, for the D4 check at push-subscribe. */
  resolve?: Resolve;
  /** Where log lines go (default stdout); tests capture them here. */
  logDestination?: DestinationStream;
  /** Replaceable parts (RS1); in-process implementations by default. */
  rooms?: Rooms;
  presence?: Presence;
  pushDecision?: PushDecision;
  store?: SubscriptionStore;
  /** Where the relay counts for /metrics (P5); fresh by default. */
  counters?: RelayCounters;
  /** With --redis: the subscription store's key prefix (default `relay:`), so tests sharing one
   * Redis keep their stores apart. */
  redisStorePrefix?: string;
};

export type RunningRelay = {
  /** ws://host:port plus the base path when it is not `/` (P1). */
  url: string;
  port: number;
  host: string;
  vapidPublicKey: string;
  log: Logger;
  /** Open WebSocket connections. */
  connections(): number;
  /** Accepted sockets whose first request's headers have not all arrived (P8). */
  handshakes(): number;
  /** Resolves when every push and subscription operation started so far has settled. */
  idle(): Promise<void>;
  /** Stops accepting, closes sockets with 1001, closes the database. Safe to call twice. */
  close(): Promise<void>;
};

function plainResponse(socket: Socket, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

export async function startRelay(options: RelayOptions = {}): Promise<RunningRelay> {
  const settings: RelaySettings = { ...DEFAULT_SETTINGS };
  for (const [k, v] of Object.entries(options))
    if (k in DEFAULT_SETTINGS && v !== undefined) (settings as Record<string, unknown>)[k] = v;
  const base = parseBasePath(settings.path);
  if (!base.ok) throw new Error(`path ${base.message}`);
  const route = makeRouter(base.value);
  const counters = options.counters ?? makeCounters();
  const timers = options.timers ?? realTimers;
  const log = pino(
    { level: settings.logLevel, base: undefined },
    options.logDestination ?? pino.destination(1),
  );
  const unsafeOrigins = new Set(settings.unsafeAllowPushOrigins.map((o) => new URL(o).origin));

  ensureDataDir(settings.dataDir);
  // With --redis every replica shares rooms, presence, subscriptions and the VAPID key. Loaded
  // only then: ioredis and the Redis parts are ~2 MB of heap a single process would carry for
  // nothing, and a larger old generation makes V8 collect it more often under 16 KiB traffic.
  const redis =
    settings.redis === undefined
      ? null
      : await Promise.all([import('./redis/redis-rooms.ts'), import('./redis/redis-store.ts')]);
  const shared =
    redis === null || settings.redis === undefined
      ? null
      : redis[0].makeRedisRooms({
          url: settings.redis,
          heartbeatMs: settings.redisHeartbeatMs,
          timers,
          log,
        });
  if (shared !== null) await shared.start();
  const vapid =
    shared === null || redis === null
      ? loadOrCreateVapidKeys(settings.dataDir)
      : await redis[1].loadOrCreateRedisVapid(shared.command);
  if (redis !== null)
    shared?.afterReconnect(() => redis[1].restoreRedisVapid(shared.command, vapid));
  const health = shared?.health ?? (() => null);
  const store =
    options.store ??
    (shared === null || redis === null
      ? openSqliteSubscriptions(settings.dataDir)
      : redis[1].makeRedisSubscriptions(shared.command, options.redisStorePrefix));
  const rooms = options.rooms ?? shared?.rooms ?? makeLocalRooms();
  const presence = options.presence ?? shared?.presence ?? makeLocalPresence(rooms);
  const decision =
    options.pushDecision ??
    (shared === null
      ? makeLocalPushDecision(rooms, timers.now, settings.pingIntervalMs)
      : shared.pushDecision(timers.now, settings.pingIntervalMs));
  const sender = countingPushSender(
    options.pushSender ??
      makeHttpPushSender({ deadlineMs: settings.pushTimeoutMs, unsafeOrigins, timers }),
    counters,
  );
  const push = makePushServiceFor(settings, { store, decision, sender, vapid, timers, log });
  const conns = new Set<Connection>();
  const subscriptionLife = makeSubscriptionLife({
    store,
    settings,
    timers,
    log,
    expired: (n) => void (counters.subscriptionsStale += n),
    *machineRooms() {
      for (const c of conns) for (const j of c.joined ?? []) if (j.role === 'machine') yield j.room;
    },
  });

  const ctx: Context = {
    settings,
    timers,
    log,
    rooms,
    presence,
    push,
    store,
    subscriptionLife,
    ipTag: makeIpTag(vapid.privateKey),
    unsafeOrigins,
    resolve: options.resolve ?? systemResolve,
    turn: makeEventLoopTurn(timers),
    counters,
    // Two immediates: from whatever phase this is called, a whole poll phase runs before fn.
    afterReads: (fn) => void setImmediate(() => setImmediate(fn)),
  };

  // P8: sockets are counted from the TCP accept on, before any byte of HTTP is read, so slow or
  // half-open clients cannot take every descriptor: per address (without --trust-proxy; behind a
  // proxy the address is known only from the headers, so it is counted at the upgrade) and in
  // total while their first request's headers are still arriving (Node's headersTimeout closes
  // those that take too long, a silent socket included). `accepted` holds every socket not (yet)
  // a WebSocket: its address key (null behind a proxy) and whether its first request is pending.
  const perIp = new Map<string, number>();
  const countIp = (key: string) => {
    const n = (perIp.get(key) ?? 0) + 1;
    perIp.set(key, n);
    return n;
  };
  const releaseIp = (key: string) => {
    const left = (perIp.get(key) ?? 1) - 1;
    if (left === 0) perIp.delete(key);
    else perIp.set(key, left);
  };
  type Accepted = { key: string | null; first: boolean };
  const accepted = new Map<Socket, Accepted>();
  let handshakes = 0;
  const firstRequestDone = (a: Accepted | undefined) => {
    if (a?.first !== true) return;
    a.first = false;
    handshakes--;
  };
  // One listener for every accepted socket (no closure per socket).
  function onAcceptedClose(this: Socket) {
    const a = accepted.get(this);
    if (a === undefined) return;
    accepted.delete(this);
    firstRequestDone(a);
    if (a.key !== null) releaseIp(a.key);
  }
  const onAccept = (socket: Socket) => {
    if (handshakes >= settings.maxHandshakes) {
      counters.limits[LIMITS.handshakes]++;
      return void socket.destroy();
    }
    handshakes++;
    const key = settings.trustProxy ? null : ipKey(socket.remoteAddress);
    accepted.set(socket, { key, first: true });
    socket.on('close', onAcceptedClose);
    // One socket over the cap goes on to be told `limit` after its upgrade (D3); any further
    // one is closed here, before it costs more than the accept.
    if (key !== null && countIp(key) > settings.maxConnectionsPerIp + 1) {
      counters.limits[LIMITS.connectionsPerIp]++;
      socket.destroy();
    }
  };

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_TRANSPORT_BYTES, // D1: ws closes larger messages with 1009
    perMessageDeflate: false,
    // UTF-8 is checked per frame in Connection, so invalid UTF-8 gets the rules' reply instead
    // of a protocol close.
    skipUTF8Validation: true,
    clientTracking: false,
  });

  const server = http.createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, settings.headersTimeoutMs / 4)),
    },
    (req, res) => {
      firstRequestDone(accepted.get(req.socket));
      const at = req.method === 'GET' ? route(req.url) : null;
      if (at === ROUTE.metrics && metrics !== null) {
        metrics.render().then(
          (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
          (e: unknown) => {
            log.error({ error: (e as Error).message }, 'metrics failed');
            res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed');
          },
        );
      } else if (at === ROUTE.healthz) {
        const reason = health();
        if (reason === null)
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        else
          res
            .writeHead(503, { 'content-type': 'application/json' })
            .end(JSON.stringify({ ok: false, reason }));
      } else if (at === ROUTE.vapid) {
        res
          .writeHead(200, {
            'content-type': 'application/json',
            'access-control-allow-origin': '*',
          })
          .end(JSON.stringify({ publicKey: vapid.publicKey }));
      } else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    },
  );
  server.keepAliveTimeout = settings.keepAliveTimeoutMs;
  server.on('connection', onAccept);

  const refuseUpgrade = (socket: Socket, why: UpgradeRefusal) => {
    counters.upgradesRefused[why]++;
    if (why === UPGRADE_REFUSALS.notFound) plainResponse(socket, 404, 'Not Found');
    else plainResponse(socket, 503, 'Service Unavailable');
  };
  let closing = false;
  server.on('upgrade', (req: http.IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    firstRequestDone(accepted.get(socket));
    if (closing) return refuseUpgrade(socket, UPGRADE_REFUSALS.closing);
    if (route(req.url) !== ROUTE.socket) return refuseUpgrade(socket, UPGRADE_REFUSALS.notFound);
    if (conns.size >= settings.maxConnections) {
      log.warn({ max: settings.maxConnections }, 'connection cap reached; upgrade refused');
      counters.limits[LIMITS.connections]++;
      return refuseUpgrade(socket, UPGRADE_REFUSALS.full);
    }
    const forwarded = settings.trustProxy
      ? String(req.headers['x-forwarded-for'] ?? '')
          .split(',')
          .pop()
          ?.trim()
      : undefined;
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      // From here the WebSocket's close releases the address's count.
      const a = accepted.get(socket);
      accepted.delete(socket);
      socket.removeListener('close', onAcceptedClose);
      const key = a?.key ?? ipKey(forwarded || socket.remoteAddress);
      const n = a?.key != null ? (perIp.get(key) ?? 1) : countIp(key);
      socket.setNoDelay(true);
      const conn = new Connection(ctx, ws, socket, key);
      conns.add(conn);
      pings.add(conn);
      counters.connectionsOpened++;
      ws.on('message', (data: Buffer, isBinary: boolean) => conn.onMessage(data, isBinary));
      ws.on('pong', () => conn.onPong());
      ws.on('error', (e: Error) => log.debug({ error: e.message }, 'socket error'));
      ws.on('close', () => {
        conns.delete(conn);
        pings.delete(conn);
        releaseIp(key);
        conn.onClose();
      });
      if (n > settings.maxConnectionsPerIp) {
        conn.limit(
          LIMITS.connectionsPerIp,
          `at most ${settings.maxConnectionsPerIp} connections per IP`,
        );
        conn.closed = true;
        ws.close(1008, 'limit');
      }
    });
  });

  // One timer for every socket (a per-socket timer would cost memory on idle sockets), its sweep
  // spread over the interval in slices (P10).
  const pings = makePingSweep<Connection>({
    timers,
    intervalMs: settings.pingIntervalMs,
    slices: settings.pingSlices,
    visit(c) {
      if (!c.alive) {
        counters.limits[LIMITS.pingTimeout]++;
        c.closed = true;
        c.ws.terminate();
        return;
      }
      c.alive = false;
      c.ws.ping();
    },
    everyInterval: () => push.prune(),
  });
  await subscriptionLife.start();

  const metrics = settings.metrics
    ? await (
        await import('./metrics.ts')
      ).makeRelayMetrics({
        counters,
        sockets: () => conns,
        maxConnections: settings.maxConnections,
        ...(shared === null ? {} : { redisHealth: health }),
      })
    : null;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const hostForUrl = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  if (unsafeOrigins.size > 0) {
    log.warn(
      { origins: [...unsafeOrigins] },
      'UNSAFE: push endpoints on these origins bypass the SSRF checks (tests only)',
    );
  }
  if (settings.vapidSubject === undefined)
    log.warn('no --vapid-subject: Web Push is disabled (push-disabled)');
  log.info({ host: settings.host, port }, 'relay listening');

  let closed: Promise<void> | null = null;
  const idle = async () => {
    await Promise.all([...conns].map((c) => c.settled()));
    await push.idle();
    await subscriptionLife.idle();
  };
  return {
    url: `ws://${hostForUrl}:${port}${base.value === '/' ? '' : base.value}`,
    port,
    host: settings.host,
    vapidPublicKey: vapid.publicKey,
    log,
    connections: () => conns.size,
    handshakes: () => handshakes,
    idle,
    close() {
      closed ??= (async () => {
        closing = true;
        pings.stop();
        subscriptionLife.stop();
        const serverClosed = new Promise<void>((r) => server.close(() => r()));
        const socketsClosed = [...conns].map(
          (c) =>
            new Promise<void>((r) => {
              c.ws.once('close', () => r());
              c.closed = true;
              c.ws.close(CLOSE_GOING_AWAY, 'relay shutting down');
            }),
        );
        // A peer that never answers the close handshake must not hold shutdown hostage.
        const grace = setTimeout(() => {
          for (const c of conns) c.ws.terminate();
        }, 2_000);
        await Promise.all(socketsClosed);
        clearTimeout(grace);
        server.closeAllConnections();
        await serverClosed;
        await idle().catch(() => undefined);
        await rooms.close();
        await store.close();
        metrics?.close();
        log.info('relay closed');
        log.flush?.();
      })();
      return closed;
    },
  };
}
