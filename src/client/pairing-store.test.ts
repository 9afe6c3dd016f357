import { describe, expect, it } from 'vitest';
import { encodePairing, pairingLink, toBase64Url } from '../../protocol/index.ts';
import { readPairingInput } from './pairing-store.ts';

const code = encodePairing({
  v: 1,
  relay: 'wss://relay.example',
  secret: toBase64Url(new Uint8Array(32).fill(2)),
  machine: 'laptop',
});

describe('Pairing input: a pasted code or a #pair= link, each bad code with its own error code', () => {
  it('accepts a pasted code with surrounding whitespace, and a full pairing link', () => {
    expect(readPairingInput(`  ${code}\n`)).toMatchObject({
      ok: true,
      value: { machine: 'laptop' },
    });
    expect(readPairingInput(pairingLink('http://127.0.0.1:4173', code))).toMatchObject({
      ok: true,
    });
  });
  it.each([
    ['not base64url', '%%%', 'not-base64url'],
    ['not JSON', toBase64Url(new TextEncoder().encode('hello')), 'not-json'],
    [
      'wrong version',
      toBase64Url(
        new TextEncoder().encode(
          JSON.stringify({
            v: 2,
            relay: 'wss://r.example',
            secret: toBase64Url(new Uint8Array(32)),
            machine: 'm',
          }),
        ),
      ),
      'unsupported-version',
    ],
    [
      'short secret',
      encodePairing({
        v: 1,
        relay: 'wss://r.example',
        secret: toBase64Url(new Uint8Array(5)),
        machine: 'm',
      }),
      'bad-secret',
    ],
  ])('%s → %s', (_what, input, expected) => {
    expect(readPairingInput(input)).toMatchObject({ ok: false, code: expected });
  });
});
