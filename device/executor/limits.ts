// Executor bounds (X4 and the spec's §2.1/§4 advice). Every one carries its unit; the ones a
// deployment may want to change are also options of startExecutor.

/** §4: "≤ 64 KiB of raw bytes is a good default" — the raw bytes of one chunk before base64. */
export const MAX_CHUNK_RAW_BYTES = 64 * 1024;
/** Output kept per exec stream (stdout and stderr each); the rest is drained and flagged truncated. */
export const DEFAULT_MAX_OUTPUT_BYTES_PER_STREAM = 256 * 1024 * 1024;
/** The largest file a read instruction streams; larger files fail `invalid` (nothing is cut silently). */
export const DEFAULT_MAX_READ_BYTES = 256 * 1024 * 1024;
/** The largest payload a write instruction accepts (X4). */
export const DEFAULT_MAX_WRITE_BYTES = 256 * 1024 * 1024;
/** Free space that must remain after a write (X4: check free space). */
export const MIN_FREE_BYTES_AFTER_WRITE = 64 * 1024 * 1024;
/** Unacked chunk bytes (encoded) held per executor before the producers are paused. */
export const DEFAULT_MAX_UNACKED_CHUNK_BYTES = 16 * 1024 * 1024;
/** Results held waiting for resultAck before the oldest is given up (R5: bounded outbox). */
export const DEFAULT_MAX_HELD_RESULTS = 1024;
/** How many connections a result is re-sent on before it is given up (R5: bounded retries). */
export const DEFAULT_MAX_RESULT_SENDS = 8;
/** X3: TERM, then this grace, then KILL. */
export const DEFAULT_KILL_GRACE_MS = 2000;
/** After KILL, how long we wait to see the group gone before answering `outcome_unknown`. */
export const KILL_CONFIRM_MS = 3000;
/** How often /proc is scanned while waiting for a process group to disappear. */
export const GROUP_POLL_INTERVAL_MS = 15;
/**
 * H7b: after everything the executor can find of a command is dead, how long its output may
 * stay open while being read before a process nobody could identify is assumed to hold it.
 */
export const OUTPUT_DRAIN_AFTER_KILL_MS = 1000;
/** After the shell exits, how long its pipes may stay open before the rest of its group is killed. */
export const LINGER_AFTER_EXIT_MS = 500;
/** Pipe output of one kind is coalesced for at most this long so tiny writes do not flood chunks. */
export const CHUNK_COALESCE_MS = 4;
/** X7: the executor refuses to sign a nonce longer than this (UTF-8 bytes). */
export const MAX_NONCE_BYTES = 256;
/** §1.4 / §7: reconnect backoff, jittered. */
export const RECONNECT_MIN_MS = 1000;
export const RECONNECT_MAX_MS = 60_000;
/** §1.1: enrollment never retries faster than this and stops after this many attempts. */
export const ENROLL_MIN_RETRY_MS = 1000;
export const ENROLL_MAX_ATTEMPTS = 10;
/** R15: on SIGTERM/SIGINT, in-flight work gets this long to finish before it is killed. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/** After the work is settled, how long we wait for the last resultAcks before closing. */
export const SHUTDOWN_ACK_WAIT_MS = 2000;
/** A result's outcome must leave room for the frame around it under the 1 MiB frame cap. */
export const MAX_RESULT_OUTCOME_BYTES = 1024 * 1024 - 4096;
