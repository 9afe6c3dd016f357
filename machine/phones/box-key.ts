import { readFileSync, statSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { boxKeyPairFromSecretKey, makeBoxKeyPair, type BoxKeyPair } from '../../protocol/index.ts';
import { ensurePrivateDir, StateError, writePrivateFile } from '../links/state-dir.ts';

// E6: the machine's own X25519 key pair, made once and kept in the state dir (owner-only, written
// atomically). Phones pin its public half (`machine.status.boxKey`) and open a `room.rotate` only
// when it was boxed by it, so losing or replacing it silently would strand every phone at the next
// revoke: a damaged file is an error, never replaced.

export const BOX_KEY_FILE = 'box-key';

export function loadOrCreateBoxKey(stateDir: string): BoxKeyPair {
  ensurePrivateDir(stateDir);
  const file = path.join(stateDir, BOX_KEY_FILE);
  let text: string | null = null;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new StateError('state-dir-unusable', `cannot read ${file}: ${(e as Error).message}`);
    }
  }
  if (text === null) {
    const pair = makeBoxKeyPair();
    writePrivateFile(file, Buffer.from(pair.secretKey).toString('base64url') + '\n');
    return pair;
  }
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length !== 32 || bytes.toString('base64url') !== text) {
    throw new StateError(
      'box-key-corrupt',
      `${file} does not hold a 32-byte key; restore it (phones pin this key) or remove it and pair every phone again`,
    );
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return boxKeyPairFromSecretKey(new Uint8Array(bytes));
}
