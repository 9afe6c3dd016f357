import { describe, expect, it } from 'vitest';
import { toBase64Url, utf8Encode } from './bytes.ts';
import {
  encodePairing,
  isLoopbackHost,
  pairingLink,
  parsePairing,
  parsePairingLink,
  type PairingErrorCode,
} from './pairing.ts';

const secret = toBase64Url(new Uint8Array(32).fill(1));
const good = { v: 1 as const, relay: 'wss://relay.example/ws', secret, machine: 'laptop' };
const codeFor = (value: unknown) => toBase64Url(utf8Encode(JSON.stringify(value)));
const failure = (code: string): PairingErrorCode | 'ok' => {
  const r = parsePairing(code);
  return r.ok ? 'ok' : r.code;
};

describe('pairing payload (spec "Crypto": base64url of {v, relay, secret, machine})', () => {
  it('round-trips and yields the 32 secret bytes', () => {
    const r = parsePairing(encodePairing(good));
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect({ ...r.value, secretBytes: undefined }).toEqual({ ...good, secretBytes: undefined });
      expect(r.value.secretBytes).toEqual(new Uint8Array(32).fill(1));
    }
  });

  it.each<[string, string, PairingErrorCode]>([
    ['not base64url', 'not base64!', 'not-base64url'],
    ['empty', '', 'not-base64url'],
    ['not JSON', toBase64Url(utf8Encode('{v:1')), 'not-json'],
    ['not UTF-8', toBase64Url(new Uint8Array([0xff, 0xfe])), 'not-json'],
    ['an array', codeFor([1]), 'not-object'],
    ['null', codeFor(null), 'not-object'],
    ['a number', codeFor(5), 'not-object'],
    ['a string', codeFor('pair'), 'not-object'],
    ['v 2', codeFor({ ...good, v: 2 }), 'unsupported-version'],
    ['v missing', codeFor({ ...good, v: undefined }), 'unsupported-version'],
    ['v "1"', codeFor({ ...good, v: '1' }), 'unsupported-version'],
    ['relay missing', codeFor({ ...good, relay: undefined }), 'bad-relay-url'],
    ['relay not a URL', codeFor({ ...good, relay: 'relay.example' }), 'bad-relay-url'],
    ['relay https', codeFor({ ...good, relay: 'https://relay.example' }), 'bad-relay-url'],
    ['relay ws:// remote', codeFor({ ...good, relay: 'ws://relay.example' }), 'bad-relay-url'],
    [
      'relay ws:// private IP',
      codeFor({ ...good, relay: 'ws://192.168.1.2:8080' }),
      'bad-relay-url',
    ],
    ['relay ws:// 128.0.0.1', codeFor({ ...good, relay: 'ws://128.0.0.1' }), 'bad-relay-url'],
    [
      'relay with credentials',
      codeFor({ ...good, relay: 'wss://u:p@relay.example' }),
      'bad-relay-url',
    ],
    [
      'relay too long',
      codeFor({ ...good, relay: `wss://r.example/${'a'.repeat(600)}` }),
      'bad-relay-url',
    ],
    [
      'secret 31 bytes',
      codeFor({ ...good, secret: toBase64Url(new Uint8Array(31)) }),
      'bad-secret',
    ],
    [
      'secret 33 bytes',
      codeFor({ ...good, secret: toBase64Url(new Uint8Array(33)) }),
      'bad-secret',
    ],
    ['secret not base64url', codeFor({ ...good, secret: '!'.repeat(43) }), 'bad-secret'],
    ['secret padded base64', codeFor({ ...good, secret: `${secret}=` }), 'bad-secret'],
    ['secret missing', codeFor({ ...good, secret: undefined }), 'bad-secret'],
    ['machine missing', codeFor({ ...good, machine: undefined }), 'bad-machine-name'],
    ['machine blank', codeFor({ ...good, machine: '   ' }), 'bad-machine-name'],
    ['machine not a string', codeFor({ ...good, machine: 7 }), 'bad-machine-name'],
    ['machine 65 chars', codeFor({ ...good, machine: 'm'.repeat(65) }), 'bad-machine-name'],
    ['machine control chars', codeFor({ ...good, machine: 'a\nb' }), 'bad-machine-name'],
    ['payload too long', 'A'.repeat(2049), 'too-long'],
  ])('refuses %s', (_why, code, expected) => {
    expect(failure(code)).toBe(expected);
  });

  it.each([
    'ws://127.0.0.1:8080',
    'ws://127.255.255.254/x',
    'ws://[::1]:9000',
    'ws://localhost:1234',
    'ws://LOCALHOST',
    'wss://relay.example',
  ])('ws:// is accepted only for loopback hosts: %s is accepted', (relay) => {
    expect(failure(codeFor({ ...good, relay }))).toBe('ok');
  });

  it('isLoopbackHost knows 127.0.0.0/8, ::1 and localhost only', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('127.0.0.256')).toBe(false);
    expect(isLoopbackHost('localhost.evil.example')).toBe(false);
    expect(isLoopbackHost('10.0.0.1')).toBe(false);
  });

  it('a machine name of exactly 64 characters (emoji count once) is accepted', () => {
    expect(failure(codeFor({ ...good, machine: '😀'.repeat(64) }))).toBe('ok');
  });

  it('unknown fields in the payload are tolerated', () => {
    expect(failure(codeFor({ ...good, extra: true }))).toBe('ok');
  });
});

describe('pairing link (D14: <app-url>/#pair=<payload>)', () => {
  const code = encodePairing(good);

  it('builds the link with the payload in the fragment', () => {
    expect(pairingLink('https://app.example/', code)).toBe(`https://app.example/#pair=${code}`);
    expect(pairingLink('https://app.example', code)).toBe(`https://app.example/#pair=${code}`);
  });

  it.each([
    `https://app.example/#pair=${code}`,
    `#pair=${code}`,
    `pair=${code}`,
    `https://app.example/#x=1&pair=${code}`,
  ])('parses %s', (link) => {
    const r = parsePairingLink(link);
    expect(r.ok && r.value.machine).toBe('laptop');
  });

  it('refuses a link without #pair= (not-a-pairing-link), and a query-string code', () => {
    for (const link of ['https://app.example/', `https://app.example/?pair=${code}`]) {
      const r = parsePairingLink(link);
      expect(r.ok ? 'ok' : r.code).toBe('not-a-pairing-link');
    }
  });

  it('passes the payload error through', () => {
    const r = parsePairingLink('https://app.example/#pair=%%%');
    expect(r.ok ? 'ok' : r.code).toBe('not-base64url');
  });
});

describe('pairing relay URL: ws:// only for loopback hosts', () => {
  it.each([
    'ws://127.0.0.1.evil.example',
    'ws://localhost.evil.example',
    'ws://0.0.0.0:8787',
    'ws://[::ffff:127.0.0.1]',
    'ws://[::2]',
    'ws://169.254.1.1',
  ])('%s is refused with bad-relay-url', (relay) => {
    expect(failure(codeFor({ ...good, relay }))).toBe('bad-relay-url');
  });

  it.each(['ws://127.1:8787', 'ws://0x7f.0.0.1'])(
    '%s is the loopback address after URL normalisation, so it is accepted',
    (relay) => {
      expect(failure(codeFor({ ...good, relay }))).toBe('ok');
    },
  );

  it('surrounding whitespace from copy-paste is ignored', () => {
    expect(failure(`  ${encodePairing(good)}\n`)).toBe('ok');
  });
});
