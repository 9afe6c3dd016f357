import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { verify } from 'node:crypto';
import {
  buildHelloSignaturePayload,
  ed25519PublicKeyFromRaw,
  rawEd25519PublicKey,
  signHello,
} from '../wire/index.ts';
import { ensureKeyDir, generateDeviceKey, KEY_FILE, loadKey, saveKey } from './keystore.ts';
import { makeTmpDirs } from '../../testkit/tmp.ts';

const tmp = makeTmpDirs();
afterEach(() => tmp.cleanup());

describe('key storage (§6.2)', () => {
  it('the private key is 0600 inside a 0700 folder, and an existing loose folder is tightened', () => {
    const dir = join(tmp.make(), 'keys');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    ensureKeyDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    saveKey(dir, generateDeviceKey());
    expect(statSync(join(dir, KEY_FILE)).mode & 0o777).toBe(0o600);
  });

  it('a key readable by others is refused with the command that fixes it', () => {
    const dir = join(tmp.make(), 'keys');
    ensureKeyDir(dir);
    saveKey(dir, generateDeviceKey());
    chmodSync(join(dir, KEY_FILE), 0o644);
    expect(loadKey(dir)).toEqual({ error: expect.stringContaining('chmod 600') });
  });

  it('the stored key signs hello payloads that verify with its raw public key (node:crypto Ed25519)', () => {
    const dir = join(tmp.make(), 'keys');
    ensureKeyDir(dir);
    saveKey(dir, generateDeviceKey());
    const loaded = loadKey(dir);
    if (!loaded || 'error' in loaded) throw new Error('no key');
    const fields = {
      nonce: 'n',
      deviceId: 'dev_01J8ZQ4T9X0000000000000000',
      epoch: '01J8ZQ4T9X7M3K5N6P8R0S2V4W',
      protocolVersion: 1,
    };
    const sig = Buffer.from(signHello(loaded.key, fields), 'base64');
    const pub = ed25519PublicKeyFromRaw(rawEd25519PublicKey(loaded.key));
    expect(verify(null, buildHelloSignaturePayload(fields), pub, sig)).toBe(true);
  });
});
