import { Buffer } from 'node:buffer';
import { err, ok, type Result } from '../../protocol/result.ts';
import {
  decodeCanonicalBase64,
  ed25519PublicKeyFromRaw,
  ED25519_PUBLIC_KEY_BYTES,
  ENROLL_DISPLAY_NAME_MAX_BYTES,
  ENROLL_OPTIONAL_KEYS,
  ENROLL_PLATFORM_ARCH_MAX_BYTES,
  ENROLL_PUBKEY_MAX_BYTES,
  ENROLL_REQUIRED_KEYS,
  ENROLL_TOKEN_MAX_CHARS,
  ENROLL_WORKSPACE_ROOT_MAX_BYTES,
  isPlatformOs,
  type EnrollRequest,
} from '../wire/index.ts';

export type BodyErrorCode = 'request.invalid_json' | 'request.body_shape' | 'request.field_invalid';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const CONTROL = /[\u0000-\u001f\u007f]/;

/** JSON text → a plain object, or the §1.1 400 codes. An empty body counts as `{}`. */
export const parseJsonObject = (text: string): Result<Record<string, unknown>, BodyErrorCode> => {
  if (text.length === 0) return ok({});
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return err('request.invalid_json', 'the body is not valid JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return err('request.body_shape', 'the body must be a JSON object');
  }
  return ok(v as Record<string, unknown>);
};

/** `POST /v1/devices/enroll-tokens`: a closed shape with zero accepted keys. */
export const parseEnrollTokensBody = (text: string): Result<null, BodyErrorCode> => {
  const o = parseJsonObject(text);
  if (!o.ok) return o;
  const extra = Object.keys(o.value)[0];
  return extra === undefined
    ? ok(null)
    : err('request.body_shape', `unknown key "${extra.slice(0, 64)}": this body accepts no keys`);
};

/** `POST /v1/devices/enroll`: the closed body of §1.1, every field judged and named. */
export const parseEnrollBody = (text: string): Result<EnrollRequest, BodyErrorCode> => {
  const parsed = parseJsonObject(text);
  if (!parsed.ok) return parsed;
  const o = parsed.value;
  const allowed = new Set<string>([...ENROLL_REQUIRED_KEYS, ...ENROLL_OPTIONAL_KEYS]);
  for (const k of Object.keys(o)) {
    if (!allowed.has(k)) return err('request.body_shape', `unknown key "${k.slice(0, 64)}"`);
  }
  for (const k of ENROLL_REQUIRED_KEYS) {
    if (!(k in o)) return err('request.body_shape', `missing required key "${k}"`);
  }
  const bad = (field: string, why: string) => err('request.field_invalid', `${field} ${why}`);
  const { token, pubkey, platformOs, platformArch, displayName, workspaceRoot } = o;
  if (typeof token !== 'string' || token.length < 1 || token.length > ENROLL_TOKEN_MAX_CHARS) {
    return bad('token', `must be a string of 1–${ENROLL_TOKEN_MAX_CHARS} characters`);
  }
  if (
    typeof pubkey !== 'string' ||
    pubkey.length === 0 ||
    bytes(pubkey) > ENROLL_PUBKEY_MAX_BYTES ||
    CONTROL.test(pubkey) ||
    pubkey.trim() !== pubkey ||
    !isEd25519Raw(pubkey)
  ) {
    return bad(
      'pubkey',
      'must be a raw 32-byte Ed25519 public key in standard base64 (44 characters)',
    );
  }
  if (!isPlatformOs(platformOs)) return bad('platformOs', 'must be "darwin" or "linux"');
  if (
    platformArch !== undefined &&
    (typeof platformArch !== 'string' || bytes(platformArch) > ENROLL_PLATFORM_ARCH_MAX_BYTES)
  ) {
    return bad(
      'platformArch',
      `must be a string of at most ${ENROLL_PLATFORM_ARCH_MAX_BYTES} bytes`,
    );
  }
  if (
    displayName !== undefined &&
    (typeof displayName !== 'string' || bytes(displayName) > ENROLL_DISPLAY_NAME_MAX_BYTES)
  ) {
    return bad('displayName', `must be a string of at most ${ENROLL_DISPLAY_NAME_MAX_BYTES} bytes`);
  }
  if (
    typeof workspaceRoot !== 'string' ||
    workspaceRoot.length === 0 ||
    bytes(workspaceRoot) > ENROLL_WORKSPACE_ROOT_MAX_BYTES
  ) {
    return bad(
      'workspaceRoot',
      `must be a non-empty string of at most ${ENROLL_WORKSPACE_ROOT_MAX_BYTES} bytes`,
    );
  }
  return ok({
    token,
    pubkey,
    platformOs,
    workspaceRoot,
    ...(platformArch === undefined ? {} : { platformArch: platformArch as string }),
    ...(displayName === undefined ? {} : { displayName: displayName as string }),
  });
};

const isEd25519Raw = (b64: string): boolean => {
  const raw = decodeCanonicalBase64(b64);
  if (raw === null || raw.length !== ED25519_PUBLIC_KEY_BYTES) return false;
  try {
    ed25519PublicKeyFromRaw(raw);
    return true;
  } catch {
    return false;
  }
};
