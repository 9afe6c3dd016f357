import { readFileSync, statSync, writeFileSync, readdirSync, chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  loadOrCreateSecret,
  PAIRING_CODE_FILE,
  SECRET_FILE,
  StateError,
  writePairingCode,
} from './state-dir.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';

let cleanup: () => void = () => {};
afterEach(() => cleanup());

describe('state dir: the pairing secret, owner-only', () => {
  it('first start creates 32 random bytes (file 0600, dir 0700); later starts reuse them; --re-pair replaces them', () => {
    const t = makeTmpDir();
    cleanup = t.cleanup;
    const dir = path.join(t.dir, 'state');
    const a = loadOrCreateSecret(dir, false);
    expect(a.created).toBe(true);
    expect(a.secret).toHaveLength(32);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, SECRET_FILE)).mode & 0o777).toBe(0o600);
    const b = loadOrCreateSecret(dir, false);
    expect(b.created).toBe(false);
    expect(Buffer.from(b.secret).equals(Buffer.from(a.secret))).toBe(true);
    const c = loadOrCreateSecret(dir, true);
    expect(c.created).toBe(true);
    expect(Buffer.from(c.secret).equals(Buffer.from(a.secret))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('tightens a too-open folder and file', () => {
    const t = makeTmpDir();
    cleanup = t.cleanup;
    const dir = path.join(t.dir, 'state');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    loadOrCreateSecret(dir, false);
    chmodSync(path.join(dir, SECRET_FILE), 0o644);
    loadOrCreateSecret(dir, false);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, SECRET_FILE)).mode & 0o777).toBe(0o600);
  });

  it('a damaged secret is an error (secret-corrupt), never silently replaced', () => {
    const t = makeTmpDir();
    cleanup = t.cleanup;
    loadOrCreateSecret(t.dir, false);
    writeFileSync(path.join(t.dir, SECRET_FILE), 'short');
    try {
      loadOrCreateSecret(t.dir, false);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(StateError);
      expect((e as StateError).code).toBe('secret-corrupt');
    }
    expect(readFileSync(path.join(t.dir, SECRET_FILE), 'utf8')).toBe('short');
  });

  it('the pairing code goes to pairing-code.txt, owner-only', () => {
    const t = makeTmpDir();
    cleanup = t.cleanup;
    const file = writePairingCode(t.dir, 'CODE');
    expect(file).toBe(path.join(t.dir, PAIRING_CODE_FILE));
    expect(readFileSync(file, 'utf8')).toBe('CODE\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
