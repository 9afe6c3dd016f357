import {
  CANCEL_GRACE_MS,
  CHUNK_GAP_TIMEOUT_MS,
  DEFAULT_PAYLOAD_PART_BYTES,
  DEVICE_WS_PATH,
  ENROLL_RATE_LIMIT_REQUESTS,
  ENROLL_RATE_WINDOW_MS,
  ENROLL_TOKEN_TTL_SEC,
  EXECUTION_GRACE_MS,
  HANDSHAKE_DEADLINE_MS,
  HEARTBEAT_INTERVAL_MS,
  LIVENESS_HEARTBEATS,
  MAX_INFLIGHT_PER_DEVICE,
  OUTPUT_MAX_BYTES,
  OUTPUT_MAX_ENTRIES,
  RECONNECT_GRACE_MS,
  REORDER_MAX_BYTES,
  REORDER_MAX_ENTRIES,
  SETTLED_MEMO_ENTRIES,
} from '../wire/index.ts';
import { backgroundTimers, type Timers } from '../timers.ts';
import type { RateLimiter } from './rate-limit.ts';

export type AuditEvent = {
  at: number;
  event: string;
  deviceId?: string | undefined;
  [k: string]: unknown;
};

export type DeviceLaneOptions = {
  /** Where the device registry and audit trail live (SQLite). Required unless `enabled: false`. */
  dataDir?: string;
  /** `false`: capabilities say `deviceExecutor: false`, enrollment answers 501, no WS path. */
  enabled?: boolean;
  host?: string;
  port?: number;
  /** Bearer credential → user id: this lane's stand-in for a verified identity. */
  users?: Record<string, string>;
  wsPath?: string;
  heartbeatIntervalMs?: number;
  livenessHeartbeats?: number;
  maxInflight?: number;
  handshakeDeadlineMs?: number;
  chunkGapTimeoutMs?: number;
  cancelGraceMs?: number;
  executionGraceMs?: number;
  reconnectGraceMs?: number;
  reorderMaxEntries?: number;
  reorderMaxBytes?: number;
  settledMemoEntries?: number;
  payloadPartBytes?: number;
  /** §4 consumer-side pending-delivery bound: output not yet pulled by the host. Over it, the
   *  remote command is cancelled. */
  outputMaxBytes?: number;
  outputMaxEntries?: number;
  /** Called when a device becomes dispatchable (after generationAck) or stops being so. */
  onDeviceState?: (deviceId: string, online: boolean) => void;
  enrollTokenTtlSec?: number;
  enrollRateLimit?: { requests: number; windowMs: number };
  /** Replaces the built-in limiter (e.g. one that fails, to prove the lane fails closed). */
  rateLimiter?: RateLimiter;
  /** Sockets that have not finished the handshake; the upgrade is answered 503 when full. */
  maxPreAuthConnections?: number;
  /** The same cap per client address (IPv6 by /64), so one host cannot fill it alone. */
  maxPreAuthPerAddress?: number;
  /** `false`: a live connection is never taken over (always `already_connected`). */
  allowTakeover?: boolean;
  /** timeoutMs for dispatches that do not name one. */
  defaultTimeoutMs?: number;
  /** Audit rows kept in the database (older ones are pruned). */
  auditKeepRows?: number;
  /**
   * The timers of every rule about time: the handshake deadline, liveness (R14), the reconnect
   * grace (R4), the chunk gap (R8), the cancel grace (R11), the execution ceiling and the goodbye
   * grace (R15). Tests pass a manual clock and move time by hand.
   */
  clock?: Timers;
  /** Clock for token expiry, rate windows and lease freshness; defaults to `clock.now`. */
  now?: () => number;
  onAudit?: (e: AuditEvent) => void;
};

export type LaneConfig = Required<
  Omit<DeviceLaneOptions, 'dataDir' | 'rateLimiter' | 'onAudit' | 'onDeviceState'>
> & {
  onDeviceState: ((deviceId: string, online: boolean) => void) | undefined;
  dataDir: string | undefined;
  rateLimiter: RateLimiter | undefined;
  onAudit: ((e: AuditEvent) => void) | undefined;
};

export const resolveOptions = (o: DeviceLaneOptions): LaneConfig => ({
  dataDir: o.dataDir,
  enabled: o.enabled ?? true,
  host: o.host ?? '127.0.0.1',
  port: o.port ?? 0,
  users: o.users ?? {},
  wsPath: o.wsPath ?? DEVICE_WS_PATH,
  heartbeatIntervalMs: o.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS,
  livenessHeartbeats: o.livenessHeartbeats ?? LIVENESS_HEARTBEATS,
  maxInflight: o.maxInflight ?? MAX_INFLIGHT_PER_DEVICE,
  handshakeDeadlineMs: o.handshakeDeadlineMs ?? HANDSHAKE_DEADLINE_MS,
  chunkGapTimeoutMs: o.chunkGapTimeoutMs ?? CHUNK_GAP_TIMEOUT_MS,
  cancelGraceMs: o.cancelGraceMs ?? CANCEL_GRACE_MS,
  executionGraceMs: o.executionGraceMs ?? EXECUTION_GRACE_MS,
  reconnectGraceMs: o.reconnectGraceMs ?? RECONNECT_GRACE_MS,
  reorderMaxEntries: o.reorderMaxEntries ?? REORDER_MAX_ENTRIES,
  reorderMaxBytes: o.reorderMaxBytes ?? REORDER_MAX_BYTES,
  settledMemoEntries: o.settledMemoEntries ?? SETTLED_MEMO_ENTRIES,
  payloadPartBytes: o.payloadPartBytes ?? DEFAULT_PAYLOAD_PART_BYTES,
  outputMaxBytes: o.outputMaxBytes ?? OUTPUT_MAX_BYTES,
  outputMaxEntries: o.outputMaxEntries ?? OUTPUT_MAX_ENTRIES,
  onDeviceState: o.onDeviceState,
  enrollTokenTtlSec: o.enrollTokenTtlSec ?? ENROLL_TOKEN_TTL_SEC,
  enrollRateLimit: o.enrollRateLimit ?? {
    requests: ENROLL_RATE_LIMIT_REQUESTS,
    windowMs: ENROLL_RATE_WINDOW_MS,
  },
  rateLimiter: o.rateLimiter,
  maxPreAuthConnections: o.maxPreAuthConnections ?? 64,
  maxPreAuthPerAddress: o.maxPreAuthPerAddress ?? 16,
  allowTakeover: o.allowTakeover ?? true,
  defaultTimeoutMs: o.defaultTimeoutMs ?? 120_000,
  auditKeepRows: o.auditKeepRows ?? 20_000,
  clock: o.clock ?? backgroundTimers,
  now: o.now ?? (o.clock === undefined ? Date.now : () => o.clock!.now()),
  onAudit: o.onAudit,
});
