import { chmodSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BOX_KEY_FILE, loadOrCreateBoxKey } from './box-key.ts';
import { StateError } from '../links/state-dir.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';

let cleanup: () => void = () => {};
afterEach(() => cleanup());

describe("E6.1: the machine's box key pair, owner-only", () => {
  it('E6.1: made once (file 0600, written without a temp file left behind), the same pair on every later start; a too-open file is tightened', () => {
    const t = makeTmpDir();
    cleanup = t.cleanup;
    const dir = path.join(t.dir, 'state');
    const a = loadOrCreateBoxKey(dir);
    const file = path.join(dir, BOX_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([BOX_KEY_FILE]);
    chmodSync(file, 0o644);
    const b = loadOrCreateBoxKey(dir);
    expect(Buffer.from(b.publicKey).equals(Buffer.from(a.publicKey))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('E6.1: a damaged key file is an error (box-key-corrupt), never silently replaced', () => {
    const t = makeTmpDir();
    cleanup = t.cleanup;
    const dir = path.join(t.dir, 'state');
    loadOrCreateBoxKey(dir);
    const file = path.join(dir, BOX_KEY_FILE);
    writeFileSync(file, 'not-a-key\n');
    let thrown: unknown;
    try {
      loadOrCreateBoxKey(dir);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(StateError);
    expect((thrown as StateError).code).toBe('box-key-corrupt');
    expect(statSync(file).size).toBe('not-a-key\n'.length);
  });
});
