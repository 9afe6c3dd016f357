// One connection at a time, until something terminal happens (revoked, superseded, an unsupported
// protocol version) or stop(); between connections, the jittered backoff (§1.6).
import type { KeyObject } from 'node:crypto';
import type { Timers } from '../timers.ts';
import { DEVICE_PROTOCOL_VERSION } from '../wire/index.ts';
import { reconnectDelayMs } from './backoff.ts';
import { openConnection, type ConnectionHandler } from './connection.ts';
import * as L from './limits.ts';
import type { Logger } from './log.ts';
import type { Outbox } from './outbox.ts';
import type { ServeState } from './serve-state.ts';
import type { Shutdown } from './shutdown.ts';
import { SUPPORTED_KINDS } from './tasks.ts';
import type { ExecutorEvent, ExecutorOptions } from './types.ts';

export const EXECUTOR_VERSION = '0.1.0';

export const REVOKED_MESSAGE =
  'This device was revoked by the server. Its key has been deleted; enroll again with a new token (it gets a new deviceId).';
export const SUPERSEDED_MESSAGE =
  "Another executor took over this device's connection. Only one executor may serve a device: stop the other one (check `npm run device -- status` on each machine).";

export const makeReconnectLoop = (deps: {
  state: ServeState;
  shutdown: Shutdown;
  outbox: Outbox;
  opts: ExecutorOptions;
  clock: Timers;
  log: Logger;
  random: () => number;
  emit: (e: ExecutorEvent) => void;
  hello: { deviceId: string; epoch: string; key: KeyObject; workspaceRoot: string; wsUrl: URL };
  handler: ConnectionHandler;
}) => {
  const { state, shutdown, opts, clock, log, emit, hello } = deps;
  let attempt = 0;
  let connectedOnce = false;

  const run = async () => {
    while (!state.exited) {
      if (state.stopping) return shutdown.finishOffline();
      emit({ type: 'connecting', attempt });
      const conn = openConnection({
        url: hello.wsUrl,
        hello: {
          deviceId: hello.deviceId,
          epoch: hello.epoch,
          key: hello.key,
          workspaceRoot: hello.workspaceRoot,
          supports: SUPPORTED_KINDS,
          executorVersion: EXECUTOR_VERSION,
          unackedResults: connectedOnce ? deps.outbox.heldResults : null,
        },
        handler: deps.handler,
        clock,
        log,
      });
      state.conn = conn;
      const end = await conn.done;
      state.conn = null;
      emit({ type: 'disconnected', end });
      log('info', 'connection.end', {
        kind: end.kind,
        detail: end.kind === 'closed' ? end.why : end.kind === 'bye' ? end.reason : end.code,
      });
      if (end.kind === 'reject' && end.code === 'revoked') {
        return shutdown.terminal('revoked', REVOKED_MESSAGE);
      }
      if (end.kind === 'reject' && end.code === 'protocol_version_unsupported') {
        return shutdown.terminal(
          'protocol_version_unsupported',
          `the server does not accept protocol version ${DEVICE_PROTOCOL_VERSION} (minimum ${end.minProtocolVersion ?? 'unknown'}); upgrade the executor`,
        );
      }
      if (end.kind === 'bye' && end.reason === 'revoked')
        return shutdown.terminal('revoked', REVOKED_MESSAGE);
      if (end.kind === 'bye' && end.reason === 'superseded') {
        return shutdown.terminal('superseded', SUPERSEDED_MESSAGE);
      }
      if (state.stopping || state.exited) continue;
      const waitMs = reconnectDelayMs(
        attempt,
        deps.random,
        opts.reconnectMinMs ?? L.RECONNECT_MIN_MS,
        opts.reconnectMaxMs ?? L.RECONNECT_MAX_MS,
      );
      attempt += 1;
      await new Promise<void>((resolve) => {
        const t = clock.setTimeout(resolve, waitMs);
        state.wake = () => {
          clock.clearTimeout(t);
          resolve();
        };
      });
      state.wake = null;
    }
  };

  /** A connection reached generationAck: the backoff starts over, and hellos report held results. */
  const connected = () => {
    connectedOnce = true;
    attempt = 0;
  };

  return { run, connected };
};
