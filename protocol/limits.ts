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

// Extensions E2–E7 (additive, wire v1). Free text is bounded like the spec's free-text fields
// unless the extension says tighter; names, keys and paths get bounds that keep a list of them
// within one 16 KiB envelope and readable on a card.

/** E2: `approval.request.tool` and a rule's `tool`: a tool name, like a session step's. */
export const MAX_TOOL_CHARS = 256;
/** E2: a rule's `key` — an identity the machine matches, so it is never clamped: a machine whose
 *  key would be longer offers no rule. */
export const MAX_RULE_KEY_CHARS = 512;
/** E2: a rule's `root`, an absolute path (Linux PATH_MAX). */
export const MAX_PATH_CHARS = 4096;
/** E2: entries of a `rules` message. */
export const MAX_RULES = 256;
/** E10: an agent's name (`claude`, `codex`, `mock`) and a model's name. */
export const MAX_AGENT_NAME_CHARS = 64;
export const MAX_MODEL_CHARS = 128;
/** E10: agents a machine may announce. */
export const MAX_AGENTS = 16;
/** E3: `editable.value` and `approval.respond.edited` (extensions: "≤ 4 KiB"), UTF-8 bytes. */
export const MAX_EDITABLE_BYTES = 4 * 1024;
/** E11: `approval.respond.message`, what the owner tells the agent with a deny (code points). */
export const MAX_DENY_MESSAGE_CHARS = 500;
/** E11: a reason code (`risk.reason`, `Session.ended.reason`); unknown codes are tolerated. */
export const MAX_REASON_CODE_CHARS = 64;
/** E3: `editable.label`, shown above the edit field. */
export const MAX_EDITABLE_LABEL_CHARS = 80;
/** E11: `approval.request.risk.reason`, a code (like every `reason`); never clamped. */
export const MAX_RISK_REASON_CHARS = 64;
/** E5: the compact push's `what`. */
export const MAX_PUSH_WHAT_CHARS = 160;
/** E6: a phone's readable name ("Pixel 8 · Chrome"), like a machine name. */
export const MAX_PHONE_NAME_CHARS = 64;
/** E6: entries of a `phones` message. */
export const MAX_PHONES = 64;
/** E6: an X25519 public key (nacl.box), sent as standard base64. */
export const BOX_KEY_BYTES = 32;
/** E6: the `room.rotate` box as sent (base64 of nonce ‖ box of `{secret, relay}`). */
export const MAX_ROTATE_BOX_CHARS = 2048;
/** E7: a WebAuthn credential id (WebAuthn: at most 1023 bytes). */
export const MAX_CREDENTIAL_ID_BYTES = 1023;
/** E7: a credential's public key, SPKI DER (an RSA-8192 key is ~1.1 KB). */
export const MAX_PUBLIC_KEY_BYTES = 2048;
/** E7: an assertion's `authenticatorData` (37 bytes plus extensions). */
export const MAX_AUTHENTICATOR_DATA_BYTES = 1024;
/** E7: an assertion's `clientDataJSON`. */
export const MAX_CLIENT_DATA_JSON_BYTES = 2048;
/** E7: an assertion's `signature` (RSA-8192 is 1024 bytes). */
export const MAX_SIGNATURE_BYTES = 1024;
/** E7: a WebAuthn RP ID is a DNS host name. */
export const MAX_RP_ID_CHARS = 253;
/** E7: the registered `origin` (scheme, host, port). */
export const MAX_ORIGIN_CHARS = 512;

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
/** E9: at most this many phones wait for the owner's approval at once … */
export const MAX_PENDING_PHONES = 4;
/** E9: … and each is forgotten this long after it asked. */
export const PENDING_PHONE_KEEP_MS = 60 * 60_000;
/** E9: a revoked phone is forgotten this long after its revoke. */
export const REVOKED_PHONE_KEEP_MS = 30 * 24 * 60 * 60_000;
