// §6.2: the device's Ed25519 private key is generated here, never leaves the machine, and is
// kept in a file only its owner can read (0600) inside a folder only its owner can enter (0700).
// Beside it: the enrollment record (deviceId, server, workspace root). Nothing here is a token.
import { createPrivateKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const KEY_FILE = 'device-key.pem';
export const RECORD_FILE = 'device.json';

export type EnrollmentRecord = {
  readonly deviceId: string;
  readonly server: string;
  readonly workspaceRoot: string;
  readonly publicKeyB64: string;
  readonly displayName?: string;
  readonly enrolledAt: string;
};

export const defaultKeyDir = (): string =>
  join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'dsh-device');

/** Creates the folder 0700, or tightens an existing one to 0700. */
export const ensureKeyDir = (dir: string): void => {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new Error(`key folder ${dir} belongs to another user; refusing to use it`);
  }
  if ((st.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
};

/** Writes a file owner-only, atomically (temp + rename in the same folder). */
const writePrivate = (dir: string, name: string, text: string): void => {
  const temp = join(dir, `.${name}.${randomBytes(6).toString('hex')}`);
  writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
  renameSync(temp, join(dir, name));
};

export const generateDeviceKey = (): KeyObject => generateKeyPairSync('ed25519').privateKey;

export const saveKey = (dir: string, key: KeyObject): void =>
  writePrivate(dir, KEY_FILE, key.export({ format: 'pem', type: 'pkcs8' }) as string);

export type LoadedKey = { readonly key: KeyObject } | { readonly error: string };

export const loadKey = (dir: string): LoadedKey | null => {
  const path = join(dir, KEY_FILE);
  let text: string;
  try {
    const st = statSync(path);
    if ((st.mode & 0o077) !== 0) {
      return {
        error: `the private key ${path} is readable by other users (mode ${(st.mode & 0o777).toString(8)}); run: chmod 600 ${path}`,
      };
    }
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const key = createPrivateKey(text);
    if (key.asymmetricKeyType !== 'ed25519') return { error: `${path} is not an Ed25519 key` };
    return { key };
  } catch {
    return { error: `${path} is not a readable private key` };
  }
};

export const saveRecord = (dir: string, record: EnrollmentRecord): void =>
  writePrivate(dir, RECORD_FILE, `${JSON.stringify(record, null, 2)}\n`);

export const loadRecord = (dir: string): EnrollmentRecord | null => {
  try {
    const v = JSON.parse(readFileSync(join(dir, RECORD_FILE), 'utf8')) as Partial<EnrollmentRecord>;
    if (
      typeof v.deviceId !== 'string' ||
      typeof v.server !== 'string' ||
      typeof v.workspaceRoot !== 'string'
    ) {
      return null;
    }
    return v as EnrollmentRecord;
  } catch {
    return null;
  }
};

/** R13 `revoked`: the key material is deleted; re-enrolling makes a new key and deviceId. */
export const deleteKeyMaterial = (dir: string): void => {
  rmSync(join(dir, KEY_FILE), { force: true });
  rmSync(join(dir, RECORD_FILE), { force: true });
};
