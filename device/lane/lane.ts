import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import {
  DEVICE_HTTP_PATHS,
  DEVICE_PROTOCOL_VERSION,
  MAX_FRAME_BYTES,
  type DeviceExecutorCapability,
  type EnrollTokenResponse,
} from '../wire/index.ts';
import { makeDispatcher, type DispatchHandle, type DispatchRequest } from './dispatcher.ts';
import { makeHttpPlane } from './http-plane.ts';
import { resolveOptions, type AuditEvent, type DeviceLaneOptions } from './options.ts';
import { makeRegistry, type DeviceRecord } from './registry.ts';
import { runSocketSession } from './socket-session.ts';

/** `supports`: the kinds declared on the latest connection (empty before the first). */
export type DeviceSummary = DeviceRecord & {
  online: boolean;
  inflight: number;
  supports: string[];
};

export type DeviceLane = {
  /** http://host:port of the management plane; the WebSocket lane is at `wsUrl`. */
  url: string;
  wsUrl: string;
  capabilities: DeviceExecutorCapability;
  issueEnrollmentToken(user: string): EnrollTokenResponse;
  devices(): DeviceSummary[];
  dispatch(deviceId: string, instruction: DispatchRequest): DispatchHandle;
  cancel(instructionId: string): boolean;
  revoke(deviceId: string): boolean;
  /** Stop taking devices: `bye draining` to each, upgrades answered 503, in-flight written off. */
  drain(): Promise<void>;
  close(): Promise<void>;
  auditEvents(): AuditEvent[];
};

const rawReject = (socket: Duplex, status: number, text: string) => {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
};

export const startDeviceLane = async (options: DeviceLaneOptions): Promise<DeviceLane> => {
  const config = resolveOptions(options);
  if (config.enabled && config.dataDir === undefined) {
    throw new Error('device-lane: dataDir is required (the device registry must survive restarts)');
  }
  const registry = config.enabled ? makeRegistry(config.dataDir as string) : undefined;
  const audit = (event: string, deviceId: string | null, detail: object) => {
    const at = config.now();
    registry?.audit(at, event, deviceId, detail, config.auditKeepRows);
    config.onAudit?.({ at, event, ...(deviceId === null ? {} : { deviceId }), ...detail });
  };

  const capability: DeviceExecutorCapability = config.enabled
    ? {
        enabled: true,
        protocolVersion: DEVICE_PROTOCOL_VERSION,
        maxInflightPerDevice: config.maxInflight,
        wsPath: config.wsPath,
        management: {
          enrollTokensPath: DEVICE_HTTP_PATHS.enrollTokens,
          enrollPath: DEVICE_HTTP_PATHS.enroll,
        },
      }
    : false;

  const httpHandler = makeHttpPlane({ config, registry, capability: () => capability, audit });
  const server: Server = createServer((req, res) => {
    httpHandler(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;

  const dispatcher =
    registry === undefined ? undefined : makeDispatcher({ config, registry, audit });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    perMessageDeflate: false,
    // socket-session.ts proves every text frame UTF-8 itself: a data chunk by its byte scan
    // (ASCII only), any other frame with buffer.isUtf8 before it is parsed; ws would otherwise
    // scan each 87 KB chunk frame once more.
    skipUTF8Validation: true,
  });
  let preAuth = 0;
  const preAuthByAddress = new Map<string, number>();
  const addressKey = (a: string | undefined) => {
    const ip = (a ?? '').replace(/^::ffff:/, '');
    return ip.includes(':') ? ip.split(':').slice(0, 4).join(':') + '::/64' : ip;
  };

  server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://lane').pathname;
    if (dispatcher === undefined || registry === undefined || path !== config.wsPath) {
      return rawReject(socket, 404, 'Not Found');
    }
    const addr = addressKey(req.socket.remoteAddress);
    const fromAddr = preAuthByAddress.get(addr) ?? 0;
    if (
      dispatcher.draining ||
      preAuth >= config.maxPreAuthConnections ||
      fromAddr >= config.maxPreAuthPerAddress
    ) {
      audit('upgrade_refused', null, { draining: dispatcher.draining, preAuth, fromAddr });
      return rawReject(socket, 503, 'Service Unavailable');
    }
    preAuth += 1;
    preAuthByAddress.set(addr, fromAddr + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      preAuth -= 1;
      const n = (preAuthByAddress.get(addr) ?? 1) - 1;
      if (n <= 0) preAuthByAddress.delete(addr);
      else preAuthByAddress.set(addr, n);
    };
    // An upgrade that ws refuses (bad headers) never reaches the callback: release on close.
    socket.once('close', release);
    wss.handleUpgrade(req, socket, head, (ws) => {
      runSocketSession({
        ws,
        config,
        registry,
        dispatcher,
        audit,
        onHandshakeDone: release,
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const hostForUrl = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${hostForUrl}:${port}`;

  const socketsClosed = () =>
    Promise.all(
      [...wss.clients].map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === ws.CLOSED) return resolve();
            ws.once('close', () => resolve());
            // A peer that never answers the close frame does not hold the host up.
            setTimeout(() => ws.terminate(), 1000).unref();
          }),
      ),
    ).then(() => undefined);

  let closed = false;
  return {
    url,
    wsUrl: `ws://${hostForUrl}:${port}${config.wsPath}`,
    capabilities: capability,
    issueEnrollmentToken: (user) => {
      if (registry === undefined) throw new Error('device-lane: the lane is disabled');
      const issued = registry.issueToken(user, config.now(), config.enrollTokenTtlSec);
      audit('enroll_token_issued', null, { user });
      return issued;
    },
    devices: () =>
      (registry?.listDevices() ?? []).map((d) => {
        const c = dispatcher?.currentConn(d.deviceId);
        return {
          ...d,
          online: c !== undefined && c.phase === 'active' && !c.goodbye,
          inflight: dispatcher?.inflightCount(d.deviceId) ?? 0,
          supports: dispatcher?.supportsOf(d.deviceId) ?? [],
        };
      }),
    dispatch: (deviceId, instruction) => {
      if (dispatcher === undefined) throw new Error('device-lane: the lane is disabled');
      return dispatcher.dispatch(deviceId, instruction);
    },
    cancel: (id) => dispatcher?.cancel(id) ?? false,
    revoke: (id) => dispatcher?.revoke(id) ?? false,
    drain: async () => {
      dispatcher?.drain();
      await socketsClosed();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      dispatcher?.drain();
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      wss.close();
      registry?.close();
    },
    auditEvents: () => registry?.listAudit() ?? [],
  };
};
