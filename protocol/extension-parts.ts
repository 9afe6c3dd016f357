// Parsers for the pieces extensions E2–E7 add (types in extension-types.ts). Like
// message-parts.ts they throw `Invalid` naming the field, never its value.
import { fromBase64, fromBase64Url } from './bytes.ts';
import { PHONE_STATES, RULE_SCOPES, WEBAUTHN_ALGS, type WebAuthnAlg } from './closed-sets.ts';
import {
  Invalid,
  bool,
  defined,
  displayName,
  id,
  int,
  list,
  obj,
  oneOf,
  optId,
  optText,
  text,
  unique,
  type Fields,
} from './check.ts';
import type {
  ApprovalRisk,
  ApprovalRule,
  DecidedBy,
  Editable,
  PhoneEntry,
  PresenceAssertion,
  RuleEntry,
  WebAuthnCredential,
} from './extension-types.ts';
import {
  BOX_KEY_BYTES,
  MAX_AUTHENTICATOR_DATA_BYTES,
  MAX_CLIENT_DATA_JSON_BYTES,
  MAX_CREDENTIAL_ID_BYTES,
  MAX_EDITABLE_BYTES,
  MAX_EDITABLE_LABEL_CHARS,
  MAX_ORIGIN_CHARS,
  MAX_PATH_CHARS,
  MAX_PHONE_NAME_CHARS,
  MAX_PUBLIC_KEY_BYTES,
  MAX_RISK_REASON_CHARS,
  MAX_RP_ID_CHARS,
  MAX_RULE_KEY_CHARS,
  MAX_SIGNATURE_BYTES,
  MAX_TOOL_CHARS,
} from './limits.ts';

const MAX_FINGERPRINT_CHARS = 64;
import { isLoopbackHost } from './hosts.ts';

/** Bytes carried as base64 text: standard padded (`url` false) or base64url unpadded. */
export function base64Field(
  o: Fields,
  key: string,
  opts: { url: boolean; minBytes: number; maxBytes: number },
): string {
  const v = o[key];
  // Four characters carry three bytes: refuse an over-long string before decoding it.
  const maxChars = 4 * Math.ceil(opts.maxBytes / 3);
  const what = opts.url ? 'base64url' : 'standard base64';
  if (typeof v !== 'string' || v.length > maxChars) throw new Invalid(`${key} must be ${what}`);
  const bytes = opts.url ? fromBase64Url(v) : fromBase64(v);
  if (bytes === null) throw new Invalid(`${key} must be ${what}`);
  if (bytes.length < opts.minBytes || bytes.length > opts.maxBytes) {
    const size =
      opts.minBytes === opts.maxBytes
        ? `${opts.maxBytes} bytes`
        : `${opts.minBytes} to ${opts.maxBytes} bytes`;
    throw new Invalid(`${key} must be ${size}`);
  }
  return v;
}

/** E6: an X25519 public key, standard base64 of exactly 32 bytes. */
export const boxKey = (o: Fields, key: string): string =>
  base64Field(o, key, { url: false, minBytes: BOX_KEY_BYTES, maxBytes: BOX_KEY_BYTES });

export const tool = (o: Fields): string => {
  const v = text(o, 'tool', { chars: MAX_TOOL_CHARS });
  if (v.length === 0) throw new Invalid('tool must not be empty');
  return v;
};

function ruleKey(o: Fields): string {
  const v = text(o, 'key', { chars: MAX_RULE_KEY_CHARS });
  if (v.trim().length === 0) throw new Invalid('key must not be blank');
  return v;
}

/** E2: `approval.request.rule`. */
export function approvalRule(v: unknown): ApprovalRule {
  const o = obj(v, 'rule');
  const scopes = list(o, 'scopes', Object.keys(RULE_SCOPES).length, (s) =>
    oneOf({ scope: s }, 'scope', RULE_SCOPES),
  );
  unique(scopes, 'scopes');
  return { key: ruleKey(o), scopes };
}

/** E2: one entry of `rules`. */
export function ruleEntry(v: unknown): RuleEntry {
  const o = obj(v, 'rule');
  return defined({
    ruleId: id(o, 'ruleId'),
    key: ruleKey(o),
    tool: tool(o),
    scope: oneOf(o, 'scope', RULE_SCOPES),
    sessionId: optId(o, 'sessionId'),
    root: optText(o, 'root', { chars: MAX_PATH_CHARS }),
    createdAt: int(o, 'createdAt'),
    uses: int(o, 'uses'),
  });
}

/** A code as every `reason` is spelled: lower-case words joined by `-`. */
const RISK_CODE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * E11: `approval.request.risk`. A code this library does not know is read as sent (a newer
 * machine's; the app shows it as "risky"); a malformed one makes the request invalid.
 */
export function approvalRisk(v: unknown): ApprovalRisk {
  const o = obj(v, 'risk');
  const reason = text(o, 'reason', { chars: MAX_RISK_REASON_CHARS });
  if (!RISK_CODE.test(reason))
    throw new Invalid('reason must be a code: lower-case words joined by -');
  return { reason };
}

/** E3: the command (or other text) the phone may change. The value is never clamped. */
export function editable(v: unknown): Editable {
  const o = obj(v, 'editable');
  return {
    label: text(o, 'label', { chars: MAX_EDITABLE_LABEL_CHARS }),
    value: text(o, 'value', { bytes: MAX_EDITABLE_BYTES }),
  };
}

/** E3: `approval.respond.edited`: what will run, so never empty and never clamped. */
export function edited(o: Fields): string | undefined {
  const v = optText(o, 'edited', { bytes: MAX_EDITABLE_BYTES });
  if (v !== undefined && v.trim().length === 0) throw new Invalid('edited must not be blank');
  return v;
}

const b64url = (o: Fields, key: string, maxBytes: number) =>
  base64Field(o, key, { url: true, minBytes: 1, maxBytes });

/** E7: a malformed assertion is refused with `presence-invalid`, so the machine can say so. */
export function presenceAssertion(v: unknown): PresenceAssertion {
  try {
    const o = obj(v, 'presence');
    return {
      credentialId: b64url(o, 'credentialId', MAX_CREDENTIAL_ID_BYTES),
      authenticatorData: b64url(o, 'authenticatorData', MAX_AUTHENTICATOR_DATA_BYTES),
      clientDataJSON: b64url(o, 'clientDataJSON', MAX_CLIENT_DATA_JSON_BYTES),
      signature: b64url(o, 'signature', MAX_SIGNATURE_BYTES),
    };
  } catch (e) {
    if (e instanceof Invalid) throw new Invalid(`presence: ${e.message}`, 'presence-invalid');
    throw e;
  }
}

const RP_ID = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/;
const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;

function rpId(o: Fields): string {
  const v = text(o, 'rpId', { chars: MAX_RP_ID_CHARS });
  if (!RP_ID.test(v) || IPV4.test(v)) throw new Invalid('rpId must be a lowercase host name');
  return v;
}

/** `https://host[:port]` (or `http://` on loopback), exactly as the browser serialises it. */
function origin(o: Fields, rp: string): string {
  const v = text(o, 'origin', { chars: MAX_ORIGIN_CHARS });
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    throw new Invalid('origin must be an origin');
  }
  const secure =
    url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  if (!secure || url.origin !== v) throw new Invalid('origin must be an https origin');
  // WebAuthn: the RP ID is the origin's host or a registrable suffix of it.
  if (url.hostname !== rp && !url.hostname.endsWith(`.${rp}`)) {
    throw new Invalid('origin must be on the rpId host');
  }
  return v;
}

/** E7: `phone.register.webauthn`. */
export function webauthnCredential(v: unknown): WebAuthnCredential {
  const o = obj(v, 'webauthn');
  const alg = o.alg;
  if (!Object.values(WEBAUTHN_ALGS).includes(alg as WebAuthnAlg)) {
    throw new Invalid('alg must be one of -7, -8, -257');
  }
  const rp = rpId(o);
  return {
    credentialId: b64url(o, 'credentialId', MAX_CREDENTIAL_ID_BYTES),
    publicKey: base64Field(o, 'publicKey', {
      url: false,
      minBytes: 1,
      maxBytes: MAX_PUBLIC_KEY_BYTES,
    }),
    alg: alg as WebAuthnAlg,
    rpId: rp,
    origin: origin(o, rp),
  };
}

export const phoneName = (o: Fields): string => displayName(o, 'name', MAX_PHONE_NAME_CHARS);

/** E6: one entry of `phones`. */
export function phoneEntry(v: unknown): PhoneEntry {
  const o = obj(v, 'phone');
  return {
    phoneId: id(o, 'phoneId'),
    name: phoneName(o),
    firstSeen: int(o, 'firstSeen'),
    lastSeen: int(o, 'lastSeen'),
    revoked: bool(o, 'revoked'),
    presence: bool(o, 'presence'),
    ...(o.state === undefined ? {} : { state: oneOf(o, 'state', PHONE_STATES) }),
    ...(o.fingerprint === undefined
      ? {}
      : { fingerprint: text(o, 'fingerprint', { chars: MAX_FINGERPRINT_CHARS }) }),
  };
}

/** E6: `approval.closed.by` / `question.closed.by`. */
export function decidedBy(v: unknown): DecidedBy {
  const o = obj(v, 'by');
  return { phoneId: id(o, 'phoneId'), name: phoneName(o) };
}
