// The spec's limits as named constants. KiB = 1024 bytes (D1). "chars" are Unicode code points.

export const MAX_PROMPT_CHARS = 8192;
export const MAX_PROMPT_BYTES = 10 * 1024;
/** Every free-text field a sender clamps before sealing (session.message text, answers…). */
export const MAX_FREE_TEXT_BYTES = 10 * 1024;
/** A relay data frame, measured on the reassembled message (D1). */
export const MAX_ENVELOPE_BYTES = 16 * 1024;
/** The relay's transport cap: above it the socket closes with 1009 (D1). */
export const MAX_TRANSPORT_BYTES = 64 * 1024;
/** The sealed `push.payload` string (base64), which is the whole Web Push body (D6). */
export const MAX_PUSH_PAYLOAD_BYTES = 3 * 1024;
export const MAX_APPROVAL_DETAIL_BYTES = 8 * 1024;
export const MAX_TURN_SUMMARY_BYTES = 4 * 1024;
export const MAX_TITLE_CHARS = 80;
export const IDEMPOTENCY_CACHE_ENTRIES = 256;
/** D11: phone actions whose `ts` is further than this from the machine's clock are refused. */
export const REQUEST_WINDOW_MS = 5 * 60 * 1000;

/** A machine name is shown on a card; longer names are a bad pairing code, not a UI problem. */
export const MAX_MACHINE_NAME_CHARS = 64;
/** A relay URL inside a pairing code. */
export const MAX_RELAY_URL_CHARS = 512;
/** The whole base64url pairing code: fits a QR code comfortably. */
export const MAX_PAIRING_CODE_CHARS = 2048;
/** Ids (session, approval, question, request, item, option) are opaque but bounded. */
export const MAX_ID_CHARS = 128;

export const TRUNCATION_SUFFIX = '…[truncated]';
export const ROOM_ID_PATTERN = /^[A-Za-z0-9_-]{8,128}$/;
/** A push tag becomes the RFC 8030 Topic header only when it matches this. */
export const PUSH_TAG_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

export const PING_INTERVAL_MS = 25_000;
/** D5: the phone re-sends hello this often to prove the relay link is alive. */
export const PHONE_HELLO_PROBE_MS = 25_000;
/** D5: no hello-ok within this after a probe means the link is dead; reconnect. */
export const PHONE_HELLO_TIMEOUT_MS = 10_000;
export const STATUS_INTERVAL_MS = 60_000;
export const ACTIVITY_COALESCE_MS = 800;
