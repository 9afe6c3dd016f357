// §2.1 transport constants and the deployment defaults the spec names. Units are in the names.

export const DEVICE_WS_PATH = '/v1/device/ws';
export const DEVICE_PROTOCOL_VERSION = 1;
export const DEVICE_MIN_PROTOCOL_VERSION = 1;
export const DEVICE_HELLO_DOMAIN_TAG = 'sema.device.hello.v1';

/** §2.1 DEVICE_WS_LIMITS, keyed exactly as the spec's table. */
export const DEVICE_WS_LIMITS = {
  maxFrameBytes: 1_048_576,
  maxPreAuthFrameBytes: 4096,
  handshakeDeadlineMs: 5000,
  defaultPayloadPartBytes: 262_144,
} as const;

export const MAX_FRAME_BYTES = DEVICE_WS_LIMITS.maxFrameBytes;
export const MAX_PRE_AUTH_FRAME_BYTES = DEVICE_WS_LIMITS.maxPreAuthFrameBytes;
export const HANDSHAKE_DEADLINE_MS = DEVICE_WS_LIMITS.handshakeDeadlineMs;
export const DEFAULT_PAYLOAD_PART_BYTES = DEVICE_WS_LIMITS.defaultPayloadPartBytes;

/** Deployment defaults stated in §§1.4–5. */
export const HEARTBEAT_INTERVAL_MS = 15_000;
export const LIVENESS_HEARTBEATS = 3;
export const MAX_INFLIGHT_PER_DEVICE = 4;
export const CHUNK_GAP_TIMEOUT_MS = 30_000;
export const REORDER_MAX_ENTRIES = 64;
export const REORDER_MAX_BYTES = 2 * 1024 * 1024;
export const SETTLED_MEMO_ENTRIES = 512;
/** §4 consumer-side pending-delivery bound; overflow cancels the remote command. */
export const OUTPUT_MAX_BYTES = 2 * 1024 * 1024;
export const OUTPUT_MAX_ENTRIES = 8192;
export const CANCEL_GRACE_MS = 10_000;
export const EXECUTION_GRACE_MS = 30_000;
export const RECONNECT_GRACE_MS = 120_000;
export const LEASE_MS = 45_000;

/** §1.1 enrollment. */
export const ENROLL_TOKEN_TTL_SEC = 900;
export const ENROLL_RATE_LIMIT_REQUESTS = 10;
export const ENROLL_RATE_WINDOW_MS = 60_000;
export const ENROLL_TOKEN_MAX_CHARS = 256;
export const ENROLL_PUBKEY_MAX_BYTES = 128;
export const ENROLL_PLATFORM_ARCH_MAX_BYTES = 32;
export const ENROLL_DISPLAY_NAME_MAX_BYTES = 255;
export const ENROLL_WORKSPACE_ROOT_MAX_BYTES = 1024;
export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

/** HTTP paths of the management plane (§1.1). */
export const DEVICE_HTTP_PATHS = {
  capabilities: '/v1/capabilities',
  enrollTokens: '/v1/devices/enroll-tokens',
  enroll: '/v1/devices/enroll',
} as const;
