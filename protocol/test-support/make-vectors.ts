// Generates protocol/vectors/*.json with implementations independent of protocol/: SHA-512 and
// SHA-256 from node:crypto (not nacl.hash), X25519 from node:crypto, base64/base64url from Buffer,
// and secretbox (and the box key) from ./xsalsa20poly1305.ts (not tweetnacl).
// Run: npx tsx protocol/test-support/make-vectors.ts
import { createHash, createPrivateKey, createPublicKey, diffieHellman } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import url from 'node:url';
import { boxKeyFromShared, secretbox } from './xsalsa20poly1305.ts';
import { MACHINE_MESSAGES, PHONE_MESSAGES, TS } from './fixtures.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (n: number, f: (i: number) => number) =>
  Uint8Array.from({ length: n }, (_, i) => f(i));
const sha512 = (label: string, secret: Uint8Array) =>
  new Uint8Array(createHash('sha512').update(label, 'utf8').update(secret).digest());

const SECRETS: [string, Uint8Array][] = [
  ['all-zero', bytes(32, () => 0x00)],
  ['all-0xff', bytes(32, () => 0xff)],
  ['counting 0x00..0x1f', bytes(32, (i) => i)],
  ['alternating 0x55/0xaa', bytes(32, (i) => (i % 2 ? 0xaa : 0x55))],
  ['high bit 0x80', bytes(32, () => 0x80)],
  [
    'sha256("dsh-dispatch vector")',
    new Uint8Array(createHash('sha256').update('dsh-dispatch vector').digest()),
  ],
];

export function keyVectors() {
  return SECRETS.map(([name, secret]) => ({
    name,
    secretHex: hex(secret),
    secretBase64Url: Buffer.from(secret).toString('base64url'),
    roomId: Buffer.from(sha512('dsh-dispatch/room', secret).subarray(0, 16)).toString('base64url'),
    keyHex: hex(sha512('dsh-dispatch/key', secret).subarray(0, 32)),
  }));
}

const keyOf = (i: number) => sha512('dsh-dispatch/key', SECRETS[i]![1]).subarray(0, 32);
const sealWith = (plaintext: Uint8Array, nonce: Uint8Array, key: Uint8Array) =>
  Buffer.concat([nonce, secretbox(plaintext, nonce, key)]).toString('base64');

export function sealVectors() {
  const cases: [string, number, Uint8Array, object][] = [
    ['empty object, zero nonce', 0, bytes(24, () => 0), {}],
    ['sessions.get, counting nonce', 2, bytes(24, (i) => i), PHONE_MESSAGES['sessions.get']],
    [
      'approval.request with CJK, emoji and escapes',
      1,
      bytes(24, () => 0xff),
      {
        ...MACHINE_MESSAGES['approval.request'],
        title: '承認してください 🚀',
        detail: 'echo "a\\tb"\n\u0001 😀👍🏽',
      },
    ],
    ['machine.status', 5, bytes(24, (i) => 255 - i), MACHINE_MESSAGES['machine.status']],
    ['question.request', 3, bytes(24, (i) => (i * 7) & 0xff), MACHINE_MESSAGES['question.request']],
    [
      'dispatch.request with a 2 KiB prompt (many blocks)',
      4,
      bytes(24, (i) => i ^ 0x5a),
      { ...PHONE_MESSAGES['dispatch.request'], prompt: 'こんにちは'.repeat(140) },
    ],
  ];
  const opened = cases.map(([name, keyIndex, nonce, message]) => {
    const plaintext = JSON.stringify(message);
    return {
      name,
      keyHex: hex(keyOf(keyIndex)),
      nonceHex: hex(nonce),
      message,
      plaintext,
      payload: sealWith(new TextEncoder().encode(plaintext), nonce, keyOf(keyIndex)),
    };
  });
  const good = opened[1]!;
  const goodBytes = Buffer.from(good.payload, 'base64');
  const flipped = Buffer.from(goodBytes);
  flipped[30] = flipped[30]! ^ 0x01;
  const nonce = bytes(24, () => 7);
  const failures = [
    { name: 'wrong key', keyHex: hex(keyOf(0)), payload: good.payload, code: 'auth-failed' },
    {
      name: 'one bit flipped',
      keyHex: good.keyHex,
      payload: flipped.toString('base64'),
      code: 'auth-failed',
    },
    {
      name: 'last byte cut',
      keyHex: good.keyHex,
      payload: goodBytes.subarray(0, goodBytes.length - 1).toString('base64'),
      code: 'auth-failed',
    },
    {
      name: 'shorter than nonce + tag',
      keyHex: good.keyHex,
      payload: goodBytes.subarray(0, 39).toString('base64'),
      code: 'too-short',
    },
    {
      name: 'base64url instead of base64',
      keyHex: good.keyHex,
      payload: '-_-_',
      code: 'bad-base64',
    },
    { name: 'not base64', keyHex: good.keyHex, payload: 'not base64!', code: 'bad-base64' },
    {
      name: 'authentic but not JSON',
      keyHex: good.keyHex,
      payload: sealWith(new TextEncoder().encode('{"v":1,'), nonce, keyOf(2)),
      code: 'not-json',
    },
    {
      name: 'authentic but not UTF-8',
      keyHex: good.keyHex,
      payload: sealWith(new Uint8Array([0x22, 0xc3, 0x28, 0x22]), nonce, keyOf(2)),
      code: 'not-json',
    },
  ];
  return { opened, failures };
}

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64url');

export function pairingVectors() {
  const secret = (i: number) => Buffer.from(SECRETS[i]![1]).toString('base64url');
  const payloads = [
    { v: 1, relay: 'wss://relay.example.com', secret: secret(0), machine: 'laptop' },
    { v: 1, relay: 'wss://relay.example.com:8443/ws', secret: secret(1), machine: 'Büro-PC 🖥️' },
    { v: 1, relay: 'ws://127.0.0.1:8787', secret: secret(2), machine: '開発マシン' },
    { v: 1, relay: 'ws://[::1]:9000/relay', secret: secret(5), machine: 'm' },
    { v: 1, relay: 'ws://localhost:8787', secret: secret(3), machine: 'x'.repeat(64) },
  ];
  const good = payloads[0]!;
  const invalid: { name: string; code: string; error: string }[] = [
    { name: 'not base64url', code: 'eyJ2Ijox+/', error: 'not-base64url' },
    {
      name: 'base64url of text that is not JSON',
      code: Buffer.from('hello').toString('base64url'),
      error: 'not-json',
    },
    { name: 'a JSON array', code: b64url([good]), error: 'not-object' },
    { name: 'v 2', code: b64url({ ...good, v: 2 }), error: 'unsupported-version' },
    {
      name: 'https relay',
      code: b64url({ ...good, relay: 'https://relay.example.com' }),
      error: 'bad-relay-url',
    },
    {
      name: 'ws:// to a remote host',
      code: b64url({ ...good, relay: 'ws://relay.example.com' }),
      error: 'bad-relay-url',
    },
    {
      name: 'ws:// to 10.0.0.1',
      code: b64url({ ...good, relay: 'ws://10.0.0.1:8787' }),
      error: 'bad-relay-url',
    },
    {
      name: 'secret of 16 bytes',
      code: b64url({ ...good, secret: Buffer.alloc(16).toString('base64url') }),
      error: 'bad-secret',
    },
    {
      name: 'secret in padded base64',
      code: b64url({ ...good, secret: Buffer.alloc(32).toString('base64') }),
      error: 'bad-secret',
    },
    {
      name: 'machine missing',
      code: b64url({ v: 1, relay: good.relay, secret: good.secret }),
      error: 'bad-machine-name',
    },
    {
      name: 'machine of 65 characters',
      code: b64url({ ...good, machine: 'x'.repeat(65) }),
      error: 'bad-machine-name',
    },
    {
      name: 'payload over 2048 characters',
      code: b64url({ ...good, pad: 'p'.repeat(1600) }),
      error: 'too-long',
    },
  ];
  return { valid: payloads.map((payload) => ({ payload, code: b64url(payload) })), invalid };
}

type Outcome = { ok: true } | { ignored: string } | { invalid: true; reason?: string };

/** Parse outcomes every receiver must agree on (D12, forward compatibility, v1.2 access). */
export function messageVectors() {
  const cases: { name: string; parser: 'machine' | 'phone'; input: unknown; expect: Outcome }[] =
    [];
  for (const [type, m] of Object.entries(MACHINE_MESSAGES)) {
    cases.push({
      name: `${type} is accepted by the phone`,
      parser: 'machine',
      input: m,
      expect: { ok: true },
    });
    cases.push({
      name: `${type} is ignored by the machine (D12)`,
      parser: 'phone',
      input: m,
      expect: { ignored: 'wrong-direction' },
    });
  }
  for (const [type, m] of Object.entries(PHONE_MESSAGES)) {
    cases.push({
      name: `${type} is accepted by the machine`,
      parser: 'phone',
      input: m,
      expect: { ok: true },
    });
    cases.push({
      name: `${type} is ignored by the phone (D12)`,
      parser: 'machine',
      input: m,
      expect: { ignored: 'wrong-direction' },
    });
  }
  const status = MACHINE_MESSAGES['machine.status'];
  const dispatch = PHONE_MESSAGES['dispatch.request'];
  cases.push(
    {
      name: 'unknown type',
      parser: 'machine',
      input: { v: 1, type: 'session.teleport', ts: 1 },
      expect: { ignored: 'unknown-type' },
    },
    {
      name: 'unknown v',
      parser: 'machine',
      input: { ...status, v: 2 },
      expect: { ignored: 'unknown-version' },
    },
    {
      name: 'missing ts',
      parser: 'machine',
      input: { ...status, ts: undefined },
      expect: { invalid: true },
    },
    {
      name: 'unknown access value',
      parser: 'phone',
      input: { ...dispatch, access: 'root' },
      expect: { invalid: true, reason: 'bad-access-value' },
    },
    {
      name: 'unknown decision',
      parser: 'phone',
      input: { ...PHONE_MESSAGES['approval.respond'], decision: 'ok' },
      expect: { invalid: true },
    },
  );
  const respond = PHONE_MESSAGES['approval.respond'];
  const caps = status.capabilities;
  cases.push(
    {
      name: 'E2: an unknown scope',
      parser: 'phone',
      input: { ...respond, scope: 'forever' },
      expect: { invalid: true, reason: 'scope-not-offered' },
    },
    {
      name: 'E2: a deny with a remembered scope',
      parser: 'phone',
      input: { ...respond, decision: 'deny', scope: 'always', edited: undefined },
      expect: { invalid: true, reason: 'scope-not-offered' },
    },
    {
      name: 'E2 + E3: an edited allow with a remembered scope',
      parser: 'phone',
      input: { ...respond, scope: 'session' },
      expect: { invalid: true, reason: 'scope-not-offered' },
    },
    {
      name: 'E3: a deny with an edit',
      parser: 'phone',
      input: { ...respond, decision: 'deny', scope: undefined },
      expect: { invalid: true, reason: 'not-editable' },
    },
    {
      name: 'E7: an assertion that is not base64url',
      parser: 'phone',
      input: { ...respond, presence: { ...respond.presence, signature: 'a+b/' } },
      expect: { invalid: true, reason: 'presence-invalid' },
    },
    {
      name: 'E7: a full-access dispatch with a malformed assertion',
      parser: 'phone',
      input: { ...dispatch, presence: {} },
      expect: { invalid: true, reason: 'presence-invalid' },
    },
    {
      name: 'E7: presence capability "none" (absence says none)',
      parser: 'machine',
      input: { ...status, capabilities: { ...caps, presence: 'none' } },
      expect: { invalid: true },
    },
    {
      name: 'E2: a capability that is not a boolean',
      parser: 'machine',
      input: { ...status, capabilities: { ...caps, approvalRules: 'yes' } },
      expect: { invalid: true },
    },
    {
      name: 'E6: a boxKey of 31 bytes',
      parser: 'machine',
      input: { ...status, boxKey: Buffer.alloc(31).toString('base64') },
      expect: { invalid: true },
    },
  );
  return { cases: JSON.parse(JSON.stringify(cases)) as typeof cases };
}

/** Compact pushes sealed with fixed nonces: what the service worker opens (D6, D9). */
export function pushVectors() {
  const pushes = [
    {
      v: 1,
      type: 'push',
      kind: 'approval',
      sessionId: 's-1',
      title: 'Run bash',
      approvalId: 'a-1',
    },
    {
      v: 1,
      type: 'push',
      kind: 'question',
      sessionId: 's-1',
      title: 'Which database?',
      questionId: 'qq-1',
    },
    {
      v: 1,
      type: 'push',
      kind: 'approval',
      sessionId: 's-4',
      title: 'Run bash',
      approvalId: 'a-4',
      what: 'Run bash: npm test -- --watch=false',
    },
    { v: 1, type: 'push', kind: 'done', sessionId: 's-2', title: 'テストを修正しました ✅' },
    { v: 1, type: 'push', kind: 'error', sessionId: 's-3', title: 'worktree failed' },
  ];
  return pushes.map((push, i) => {
    const nonce = bytes(24, (j) => (i * 31 + j) & 0xff);
    const key = keyOf(i);
    return {
      keyHex: hex(key),
      nonceHex: hex(nonce),
      push,
      payload: sealWith(new TextEncoder().encode(JSON.stringify(push)), nonce, key),
    };
  });
}

// X25519 through OpenSSL: raw 32-byte keys wrapped in their fixed PKCS#8 / SPKI DER prefixes.
const X25519_PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const X25519_SPKI = Buffer.from('302a300506032b656e032100', 'hex');
const x25519Private = (sk: Uint8Array) =>
  createPrivateKey({ key: Buffer.concat([X25519_PKCS8, sk]), format: 'der', type: 'pkcs8' });
export const x25519Public = (sk: Uint8Array): Uint8Array =>
  new Uint8Array(
    createPublicKey(x25519Private(sk)).export({ format: 'der', type: 'spki' }).subarray(12),
  );
export const x25519 = (sk: Uint8Array, pk: Uint8Array): Uint8Array =>
  new Uint8Array(
    diffieHellman({
      privateKey: x25519Private(sk),
      publicKey: createPublicKey({
        key: Buffer.concat([X25519_SPKI, pk]),
        format: 'der',
        type: 'spki',
      }),
    }),
  );

/** nacl.box(message, nonce, theirPublic, mySecret), without tweetnacl. */
const naclBox = (m: Uint8Array, nonce: Uint8Array, pk: Uint8Array, sk: Uint8Array) =>
  secretbox(m, nonce, boxKeyFromShared(x25519(sk, pk)));

/** E6: `room.rotate` boxes a phone must open, and boxes it must refuse (with the code). */
export function rotateVectors() {
  // NaCl's tests/box.c secret keys (Alice = the machine, Bob = a phone) and a third party.
  const machineSk = Buffer.from(
    '77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a',
    'hex',
  );
  const phoneSk = Buffer.from(
    '5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb',
    'hex',
  );
  const otherSk = bytes(32, () => 0x42);
  const pub = (sk: Uint8Array) => Buffer.from(x25519Public(sk)).toString('base64');
  const keys = {
    machineSecretKeyHex: hex(machineSk),
    machineBoxKey: pub(machineSk),
    phoneSecretKeyHex: hex(phoneSk),
    phoneBoxKey: pub(phoneSk),
    otherSecretKeyHex: hex(otherSk),
    otherBoxKey: pub(otherSk),
  };
  const seal = (plain: Uint8Array, nonce: Uint8Array, to: Uint8Array, from: Uint8Array) =>
    Buffer.concat([nonce, naclBox(plain, nonce, x25519Public(to), from)]).toString('base64');
  const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  const secret = (i: number) => Buffer.from(SECRETS[i]![1]).toString('base64url');
  const opened = [
    ['the public relay', { secret: secret(5), relay: 'wss://relay.example.com' }],
    ['a loopback relay', { secret: secret(2), relay: 'ws://127.0.0.1:8787' }],
    ['all-0xff secret, relay with path', { secret: secret(1), relay: 'wss://r.example:8443/ws' }],
  ].map(([name, contents], i) => {
    const nonce = bytes(24, (j) => (i * 13 + j) & 0xff);
    return {
      name: name as string,
      contents: contents as { secret: string; relay: string },
      nonceHex: hex(nonce),
      box: seal(json(contents), nonce, phoneSk, machineSk),
    };
  });
  const good = opened[0]!;
  const goodBytes = Buffer.from(good.box, 'base64');
  const flipped = Buffer.from(goodBytes);
  flipped[40] = flipped[40]! ^ 0x01;
  const nonce = bytes(24, () => 3);
  const fail = (name: string, box: string, code: string, opener = keys.phoneSecretKeyHex) => ({
    name,
    box,
    machineBoxKey: keys.machineBoxKey,
    phoneSecretKeyHex: opener,
    code,
  });
  const failures = [
    fail(
      'boxed by another sender',
      seal(json(good.contents), nonce, phoneSk, otherSk),
      'auth-failed',
    ),
    fail(
      'boxed for another phone',
      seal(json(good.contents), nonce, otherSk, machineSk),
      'auth-failed',
    ),
    fail("opened by another phone's key", good.box, 'auth-failed', keys.otherSecretKeyHex),
    fail('one bit flipped', flipped.toString('base64'), 'auth-failed'),
    fail('shorter than nonce + tag', goodBytes.subarray(0, 39).toString('base64'), 'too-short'),
    fail('base64url instead of base64', goodBytes.toString('base64url'), 'bad-base64'),
    fail(
      'authentic but not JSON',
      seal(json('x').subarray(1), nonce, phoneSk, machineSk),
      'not-json',
    ),
    fail(
      'authentic, secret of 16 bytes',
      seal(
        json({ ...good.contents, secret: Buffer.alloc(16).toString('base64url') }),
        nonce,
        phoneSk,
        machineSk,
      ),
      'bad-secret',
    ),
    fail(
      'authentic, ws:// relay to a remote host',
      seal(json({ ...good.contents, relay: 'ws://relay.example.com' }), nonce, phoneSk, machineSk),
      'bad-relay-url',
    ),
  ];
  return { keys, opened, failures };
}

/**
 * E7 + E9: the exact challenge text of a decision and its SHA-256, written out from the rule
 * (content hashes with node:crypto over the JSON array the rule names).
 */
export function presenceVectors() {
  const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  const h = (text: string) => hex(hash(text));
  const room = 'Zm9vYmFyYmF6cXV4MTIzNA';
  const run = {
    tool: 'run',
    title: 'Run',
    detail: 'npm test',
    editable: { label: 'Command', value: 'npm test' },
  };
  const write = { tool: 'write', title: 'Write notes/plan.md', detail: '--- a\n+++ b\n+line' };
  const old = { title: 'Run', detail: 'ls' };
  const contentOf = (r: {
    tool?: string;
    title: string;
    detail: string;
    editable?: { value: string };
  }) =>
    h(JSON.stringify(['approval', r.tool ?? null, r.title, r.detail, r.editable?.value ?? null]));
  const decisions = [
    { approvalId: 'a-1', decision: 'allow', requestId: 'r-3', ts: TS, request: run },
    {
      approvalId: '0190d3f2-7c1e-7a4b-9f00-3c2b1a0e9d8c',
      decision: 'deny',
      requestId: 'f47ac10b-58cc-4372-a567-0e02b2c3d479',
      ts: 0,
      request: write,
    },
    {
      approvalId: '01J9Z3QK8M5V4R2T7W6X0Y1B3C',
      decision: 'allow',
      requestId: '9b2e1c4d-0f3a-4e5b-8c7d-6a5b4c3d2e1f',
      ts: 9007199254740991,
      request: old,
      scope: 'session',
    },
    {
      approvalId: 'a-2',
      decision: 'allow',
      requestId: 'r-5',
      ts: TS,
      request: run,
      edited: 'npm test -- --watch=false',
    },
  ] as const;
  const cases = [
    ...decisions.map((d) => ({
      kind: 'decision' as const,
      roomId: room,
      approvalId: d.approvalId,
      decision: d.decision,
      requestId: d.requestId,
      ts: d.ts,
      request: d.request,
      ...('scope' in d ? { scope: d.scope } : {}),
      ...('edited' in d ? { edited: d.edited } : {}),
      text: [
        'dsh-dispatch/decision',
        room,
        d.approvalId,
        d.decision,
        d.requestId,
        String(d.ts),
        contentOf(d.request),
        'scope' in d ? d.scope : '-',
        'edited' in d ? h(d.edited) : '-',
      ].join('\n'),
    })),
    ...(
      [
        [
          'r-4',
          TS,
          { prompt: 'fix the build', worktree: true, access: 'full', cwd: '/home/me/app' },
        ],
        [
          'f47ac10b-58cc-4372-a567-0e02b2c3d479',
          1,
          { prompt: 'go', worktree: false, access: 'full' },
        ],
      ] as const
    ).map(([requestId, ts, dispatch]) => ({
      kind: 'dispatch' as const,
      roomId: room,
      requestId,
      ts,
      dispatch,
      text: [
        'dsh-dispatch/decision',
        room,
        'dispatch',
        'full',
        requestId,
        String(ts),
        h(
          JSON.stringify([
            'dispatch',
            'cwd' in dispatch ? dispatch.cwd : null,
            dispatch.prompt,
            dispatch.worktree,
            dispatch.access,
          ]),
        ),
        '-',
        '-',
      ].join('\n'),
    })),
    ...(
      [
        ['phone.approve', '6f1c1a52-0d8e-4c1e-9f3a-2b1c0d9e8f7a', 'r-6'],
        ['phone.revoke', '0b4c7d2e-3f1a-4b5c-8d9e-1f2a3b4c5d6e', 'r-7'],
      ] as const
    ).map(([action, target, requestId]) => ({
      kind: 'authority' as const,
      roomId: room,
      action,
      target,
      requestId,
      ts: TS,
      text: [
        'dsh-dispatch/decision',
        room,
        action,
        target,
        requestId,
        String(TS),
        '-',
        '-',
        '-',
      ].join('\n'),
    })),
  ].map((c) => ({
    ...c,
    sha256Hex: hex(hash(c.text)),
    challenge: hash(c.text).toString('base64url'),
  }));
  // Inputs that could make two decisions read alike (or are not a ts) are never signed.
  const refused = [
    {
      name: 'a line break in the approval id',
      approvalId: 'a-1\nallow',
      decision: 'allow',
      requestId: 'r',
      ts: 1,
    },
    {
      name: 'a line break in the request id',
      approvalId: 'a-1',
      decision: 'allow',
      requestId: 'r\n1',
      ts: 1,
    },
    { name: 'an empty approval id', approvalId: '', decision: 'allow', requestId: 'r', ts: 1 },
    { name: 'a fractional ts', approvalId: 'a-1', decision: 'allow', requestId: 'r', ts: 1.5 },
    { name: 'a negative ts', approvalId: 'a-1', decision: 'allow', requestId: 'r', ts: -1 },
    { name: 'an unknown decision', approvalId: 'a-1', decision: 'ok', requestId: 'r', ts: 1 },
  ].map((r) => ({ ...r, roomId: room, content: contentOf(run) }));
  return { cases, refused };
}

export const VECTOR_FILES = {
  'keys.json': keyVectors,
  'seal.json': sealVectors,
  'pairing.json': pairingVectors,
  'messages.json': messageVectors,
  'push.json': pushVectors,
  'rotate.json': rotateVectors,
  'presence.json': presenceVectors,
} as const;

export const vectorsDir = path.join(
  path.dirname(url.fileURLToPath(import.meta.url)),
  '..',
  'vectors',
);

if (process.argv[1] && url.pathToFileURL(process.argv[1]).href === import.meta.url) {
  for (const [file, make] of Object.entries(VECTOR_FILES)) {
    writeFileSync(path.join(vectorsDir, file), `${JSON.stringify(make(), null, 2)}\n`);
    console.log(`wrote protocol/vectors/${file}`);
  }
}
