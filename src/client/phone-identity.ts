import {
  encodeBoxKey,
  makeBoxKeyPair,
  MAX_PHONE_NAME_CHARS,
  toBase64,
  fromBase64,
  boxKeyPairFromSecretKey,
  type WebAuthnCredential,
} from '../../protocol/index.ts';

// E6: this phone's identity towards one paired machine — a phoneId, an X25519 key pair that
// `room.rotate` boxes are sealed to, and a readable name — kept beside the pairing secret.

export type PhoneIdentity = {
  phoneId: string;
  /** Standard base64, 32 bytes each (the wire's `boxKey` form). */
  boxPublicKey: string;
  boxSecretKey: string;
  name: string;
};

// Models a user would recognise; the rest of the user agent is noise on a phone list.
const DEVICES: [RegExp, (m: RegExpExecArray) => string][] = [
  [/\biPhone\b/, () => 'iPhone'],
  [/\biPad\b/, () => 'iPad'],
  [/Android [\d.]+; (?:[^;)]*; )?([^;)]+?)(?: Build\/[^;)]*)?[;)]/, (m) => m[1] ?? 'Android'],
  [/\bAndroid\b/, () => 'Android'],
  [/\bCrOS\b/, () => 'Chromebook'],
  [/\bMacintosh\b/, () => 'Mac'],
  [/\bWindows\b/, () => 'Windows'],
  [/\bLinux\b/, () => 'Linux'],
];
const BROWSERS: [RegExp, string][] = [
  [/\bEdgA?\//, 'Edge'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\bOPR\//, 'Opera'],
  [/\b(?:Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\bSafari\//, 'Safari'],
];

// Android's reduced user agent says "K" instead of the model: no model is better than a letter.
const USELESS_MODELS = new Set(['K', 'Mobile', 'wv']);

/** "Pixel 8 · Chrome" from a user agent; "Phone" when nothing is recognisable. */
export function deviceName(userAgent: string): string {
  let device: string | null = null;
  for (const [re, name] of DEVICES) {
    const m = re.exec(userAgent);
    if (m) {
      const n = name(m).trim();
      device = USELESS_MODELS.has(n) ? 'Android' : n;
      break;
    }
  }
  const browser = BROWSERS.find(([re]) => re.test(userAgent))?.[1] ?? null;
  const parts = [device, browser].filter((p): p is string => p !== null && p !== '');
  return cleanPhoneName(parts.length > 0 ? parts.join(' · ') : 'Phone') ?? 'Phone';
}

/**
 * A name the machine will accept (protocol `phoneName`): control characters removed, runs of
 * spaces folded, at most MAX_PHONE_NAME_CHARS characters; null when nothing is left.
 */
export function cleanPhoneName(text: string): string | null {
  const flat = text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...flat].slice(0, MAX_PHONE_NAME_CHARS).join('').trim();
  return chars === '' ? null : chars;
}

export function makePhoneIdentity(phoneId: string, name: string): PhoneIdentity {
  const pair = makeBoxKeyPair();
  return {
    phoneId,
    boxPublicKey: encodeBoxKey(pair.publicKey),
    boxSecretKey: toBase64(pair.secretKey),
    name: cleanPhoneName(name) ?? 'Phone',
  };
}

/** The stored secret key's bytes, or null when the stored value is damaged. */
export function identitySecretKey(identity: PhoneIdentity): Uint8Array | null {
  const bytes = fromBase64(identity.boxSecretKey);
  if (!bytes || bytes.length !== 32) return null;
  // A stored public key that does not match its secret would make every box unopenable.
  return encodeBoxKey(boxKeyPairFromSecretKey(bytes).publicKey) === identity.boxPublicKey
    ? bytes
    : null;
}

/** The fields of `phone.register` (idempotent on the machine's side). */
export function registerFields(
  identity: PhoneIdentity,
  requestId: string,
  webauthn: WebAuthnCredential | null,
) {
  return {
    type: 'phone.register' as const,
    requestId,
    phoneId: identity.phoneId,
    name: identity.name,
    boxKey: identity.boxPublicKey,
    ...(webauthn ? { webauthn } : {}),
  };
}
