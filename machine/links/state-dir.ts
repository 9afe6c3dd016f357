import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../atomic-file.ts';

// The machine's state folder: the pairing secret (owner-only: folder 0700, file 0600) and the
// pairing code for scripts. The secret is created once from the CSPRNG and reused; `--re-pair`
// replaces it. A damaged secret file is an error, never silently replaced (that would unpair
// every phone without telling anyone).

export const SECRET_FILE = 'pairing-secret';
export const PAIRING_CODE_FILE = 'pairing-code.txt';
export const SECRET_BYTES = 32;

export const STATE_ERRORS = {
  'state-dir-unusable': 'state-dir-unusable',
  'secret-corrupt': 'secret-corrupt',
  'box-key-corrupt': 'box-key-corrupt',
  'write-failed': 'write-failed',
  'store-corrupt': 'store-corrupt',
  'store-too-new': 'store-too-new',
} as const;
export type StateErrorCode = keyof typeof STATE_ERRORS;
export class StateError extends Error {
  constructor(
    readonly code: StateErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Writes a file owner-only and atomically: a temp file, fsync, rename; never half-written. */
export function writePrivateFile(file: string, content: string): void {
  try {
    writeFileAtomic(file, content, 0o600);
  } catch (e) {
    throw new StateError('write-failed', `cannot write ${file}: ${(e as Error).message}`);
  }
}

export function ensurePrivateDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
  } catch (e) {
    throw new StateError('state-dir-unusable', `state dir ${dir}: ${(e as Error).message}`);
  }
}

export type LoadedSecret = { secret: Uint8Array; created: boolean };

export function loadOrCreateSecret(stateDir: string, rePair: boolean): LoadedSecret {
  ensurePrivateDir(stateDir);
  const file = path.join(stateDir, SECRET_FILE);
  if (!rePair) {
    let text: string | null = null;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new StateError('state-dir-unusable', `cannot read ${file}: ${(e as Error).message}`);
      }
    }
    if (text !== null) {
      const bytes = Buffer.from(text.trim(), 'base64url');
      if (bytes.length !== SECRET_BYTES || bytes.toString('base64url') !== text.trim()) {
        throw new StateError(
          'secret-corrupt',
          `${file} does not hold a 32-byte secret; restore it or start with --re-pair`,
        );
      }
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
      return { secret: new Uint8Array(bytes), created: false };
    }
  }
  const secret = new Uint8Array(randomBytes(SECRET_BYTES));
  saveSecret(stateDir, secret);
  return { secret, created: true };
}

export function writePairingCode(stateDir: string, code: string): string {
  const file = path.join(stateDir, PAIRING_CODE_FILE);
  writePrivateFile(file, code + '\n');
  return file;
}

/** E6: a revoke's new secret replaces the old one, atomically (the old room is in the store). */
export function saveSecret(stateDir: string, secret: Uint8Array): void {
  writePrivateFile(
    path.join(stateDir, SECRET_FILE),
    Buffer.from(secret).toString('base64url') + '\n',
  );
}
