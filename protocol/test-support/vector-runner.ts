// Checks every known-answer vector against protocol/ and returns the failures. No Node APIs:
// the same code runs under vitest and, bundled by esbuild, inside Chromium (e2e/vectors.spec.ts).
import { deriveKey, deriveRoomId } from '../keys.ts';
import { encodePairing, parsePairing } from '../pairing.ts';
import { open, seal } from '../seal.ts';
import { toBase64Url, utf8Encode } from '../bytes.ts';
import { parseMachineMessage, parsePhoneMessage } from '../messages.ts';
import { parseCompactPush } from '../push.ts';
import {
  boxKeyPairFromSecretKey,
  decodeBoxKey,
  encodeBoxKey,
  openRoomRotate,
  sealRoomRotate,
} from '../rotate-box.ts';
import {
  approvalContentHash,
  decisionChallengeText,
  dispatchChallengeText,
  dispatchContentHash,
  phoneAuthorityChallengeText,
} from '../presence.ts';
import { MAX_PUSH_PAYLOAD_BYTES } from '../limits.ts';
import messages from '../vectors/messages.json';
import pushes from '../vectors/push.json';
import keys from '../vectors/keys.json';
import sealed from '../vectors/seal.json';
import pairing from '../vectors/pairing.json';
import rotate from '../vectors/rotate.json';
import presence from '../vectors/presence.json';

export const fromHex = (h: string): Uint8Array =>
  Uint8Array.from(h.match(/../g) ?? [], (b) => parseInt(b, 16));
export const toHex = (b: Uint8Array): string =>
  Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

export type VectorCheck = { group: string; name: string; problem: string | null };

/** Deep equality of JSON values, ignoring key order. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return (
    ka.length === kb.length &&
    ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

export function checkVectors(): VectorCheck[] {
  const out: VectorCheck[] = [];
  const check = (group: string, name: string, problem: string | null) =>
    out.push({ group, name, problem });

  for (const v of keys) {
    const secret = fromHex(v.secretHex);
    const roomId = deriveRoomId(secret);
    const key = toHex(deriveKey(secret));
    check(
      'keys',
      v.name,
      toBase64Url(secret) !== v.secretBase64Url
        ? 'secret base64url differs'
        : roomId !== v.roomId
          ? `roomId ${roomId} ≠ ${v.roomId}`
          : key !== v.keyHex
            ? `key ${key} ≠ ${v.keyHex}`
            : null,
    );
  }

  for (const v of sealed.opened) {
    const key = fromHex(v.keyHex);
    const payload = seal(v.message, key, fromHex(v.nonceHex));
    const opened = open(v.payload, key);
    check(
      'seal',
      v.name,
      JSON.stringify(v.message) !== v.plaintext
        ? 'plaintext is not JSON.stringify(message)'
        : payload !== v.payload
          ? 'sealed payload differs'
          : !opened.ok
            ? `open failed: ${opened.code}`
            : !same(opened.value, v.message)
              ? 'opened message differs'
              : null,
    );
  }
  for (const v of sealed.failures) {
    const r = open(v.payload, fromHex(v.keyHex));
    check(
      'open-failure',
      v.name,
      r.ok ? 'opened' : r.code !== v.code ? `${r.code} ≠ ${v.code}` : null,
    );
  }

  for (const v of pairing.valid) {
    const code = encodePairing(v.payload as Parameters<typeof encodePairing>[0]);
    const r = parsePairing(v.code);
    check(
      'pairing',
      v.payload.machine,
      code !== v.code
        ? 'encoded code differs'
        : !r.ok
          ? `parse failed: ${r.code}`
          : !same({ ...r.value, secretBytes: undefined }, v.payload)
            ? 'parsed payload differs'
            : toBase64Url(r.value.secretBytes) !== v.payload.secret
              ? 'secret bytes differ'
              : null,
    );
  }
  for (const v of pairing.invalid) {
    const r = parsePairing(v.code);
    check(
      'pairing-invalid',
      v.name,
      r.ok ? 'accepted' : r.code !== v.error ? `${r.code} ≠ ${v.error}` : null,
    );
  }

  for (const v of messages.cases) {
    const parse = v.parser === 'machine' ? parseMachineMessage : parsePhoneMessage;
    const r = parse(v.input);
    const e = v.expect as { ok?: true; ignored?: string; invalid?: true; reason?: string };
    const got = r.ok
      ? 'ok'
      : r.ignored
        ? `ignored:${r.code}`
        : `invalid${r.reason ? `:${r.reason}` : ''}`;
    const want = e.ok
      ? 'ok'
      : e.ignored
        ? `ignored:${e.ignored}`
        : `invalid${e.reason ? `:${e.reason}` : ''}`;
    check(
      'messages',
      v.name,
      got !== want
        ? `${got} ≠ ${want}`
        : r.ok && !same(r.value, v.input)
          ? 'parsed value differs'
          : null,
    );
  }

  for (const v of pushes) {
    const key = fromHex(v.keyHex);
    const opened = open(v.payload, key);
    const parsed = opened.ok ? parseCompactPush(opened.value) : null;
    check(
      'push',
      `${v.push.kind} push`,
      seal(v.push, key, fromHex(v.nonceHex)) !== v.payload
        ? 'sealed payload differs'
        : v.payload.length > MAX_PUSH_PAYLOAD_BYTES
          ? 'over 3 KiB'
          : !parsed || !parsed.ok || !same(parsed.value, v.push)
            ? 'does not open and parse to the push'
            : null,
    );
  }
  checkRotate(check);
  checkPresence(check);
  return out;
}

type Check = (group: string, name: string, problem: string | null) => void;

function checkRotate(check: Check): void {
  const k = rotate.keys;
  const machineSk = fromHex(k.machineSecretKeyHex);
  const phoneSk = fromHex(k.phoneSecretKeyHex);
  const pairs: [string, string, string][] = [
    ['machine', k.machineSecretKeyHex, k.machineBoxKey],
    ['phone', k.phoneSecretKeyHex, k.phoneBoxKey],
    ['other', k.otherSecretKeyHex, k.otherBoxKey],
  ];
  for (const [who, sk, pk] of pairs) {
    const derived = encodeBoxKey(boxKeyPairFromSecretKey(fromHex(sk)).publicKey);
    check('rotate-keys', who, derived !== pk ? `public key ${derived} ≠ ${pk}` : null);
  }
  const machinePk = decodeBoxKey(k.machineBoxKey)!;
  for (const v of rotate.opened) {
    const box = sealRoomRotate(
      v.contents,
      decodeBoxKey(k.phoneBoxKey)!,
      machineSk,
      fromHex(v.nonceHex),
    );
    const r = openRoomRotate(v.box, machinePk, phoneSk);
    check(
      'rotate',
      v.name,
      box !== v.box
        ? 'sealed box differs'
        : !r.ok
          ? `open failed: ${r.code}`
          : r.value.secret !== v.contents.secret || r.value.relay !== v.contents.relay
            ? 'opened contents differ'
            : toBase64Url(r.value.secretBytes) !== v.contents.secret
              ? 'secret bytes differ'
              : null,
    );
  }
  for (const v of rotate.failures) {
    const r = openRoomRotate(v.box, decodeBoxKey(v.machineBoxKey)!, fromHex(v.phoneSecretKeyHex));
    check(
      'rotate-failure',
      v.name,
      r.ok ? 'opened' : r.code !== v.code ? `${r.code} ≠ ${v.code}` : null,
    );
  }
}

type PresenceCase = (typeof presence.cases)[number];

function challengeOf(v: PresenceCase): string | null {
  // The JSON's union of case shapes is loose; each kind carries its own fields (make-vectors.ts).
  const c = v as unknown as {
    approvalId: string;
    decision: 'allow' | 'deny';
    request: Parameters<typeof approvalContentHash>[0];
    scope?: 'once' | 'session' | 'always';
    edited?: string;
    dispatch: Parameters<typeof dispatchContentHash>[0];
    action: 'phone.approve' | 'phone.revoke';
    target: string;
  };
  if (v.kind === 'decision') {
    return decisionChallengeText({
      roomId: v.roomId,
      approvalId: c.approvalId,
      decision: c.decision,
      requestId: v.requestId,
      ts: v.ts,
      content: approvalContentHash(c.request),
      ...(c.scope !== undefined ? { scope: c.scope } : {}),
      ...(c.edited !== undefined ? { edited: c.edited } : {}),
    });
  }
  if (v.kind === 'dispatch') {
    return dispatchChallengeText({
      roomId: v.roomId,
      requestId: v.requestId,
      ts: v.ts,
      content: dispatchContentHash(c.dispatch),
    });
  }
  return phoneAuthorityChallengeText({
    roomId: v.roomId,
    action: c.action,
    target: c.target,
    requestId: v.requestId,
    ts: v.ts,
  });
}

function checkPresence(check: Check): void {
  for (const v of presence.cases) {
    const text = challengeOf(v as PresenceCase);
    check(
      'presence',
      `${v.kind} ${v.requestId}`,
      text !== v.text ? 'challenge text differs' : null,
    );
  }
  for (const v of presence.refused) {
    const text = decisionChallengeText({ ...v, decision: v.decision as 'allow' });
    check('presence-refused', v.name, text !== null ? 'a text was built' : null);
  }
}

/**
 * E7: the challenge is SHA-256 of the text, computed by each side's platform (protocol/ has no
 * SHA-256). Given that platform's digest (WebCrypto in the page, the service worker and Node),
 * checks every text hashes to the pinned value and its base64url is the pinned challenge.
 */
export async function checkPresenceDigests(
  sha256: (data: Uint8Array) => Promise<ArrayBuffer>,
): Promise<VectorCheck[]> {
  const out: VectorCheck[] = [];
  for (const v of presence.cases) {
    const digest = new Uint8Array(await sha256(utf8Encode(v.text)));
    out.push({
      group: 'presence-sha256',
      name: `${v.kind} ${v.requestId}`,
      problem:
        toHex(digest) !== v.sha256Hex
          ? 'SHA-256 differs'
          : toBase64Url(digest) !== v.challenge
            ? 'challenge differs'
            : null,
    });
  }
  return out;
}
