// VAPID keys are created once and kept in the data dir, owner-only: the public key never changes
// across restarts (D7), or every phone's subscription would silently stop working.
import fs from 'node:fs';
import path from 'node:path';
import webpush from 'web-push';

export type VapidKeys = { publicKey: string; privateKey: string };

const isKeys = (v: unknown): v is VapidKeys =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as VapidKeys).publicKey === 'string' &&
  typeof (v as VapidKeys).privateKey === 'string';

export function loadOrCreateVapidKeys(dataDir: string): VapidKeys {
  const file = path.join(dataDir, 'vapid.json');
  if (fs.existsSync(file)) {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (!isKeys(parsed)) throw new Error(`${file} is not a VAPID key file; refusing to replace it`);
    return parsed;
  }
  const keys = webpush.generateVAPIDKeys();
  // Write a temp file owner-only, then link it into place: never a half-written key file, and
  // a concurrent first start cannot overwrite keys another process already published.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(keys), { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(tmp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    fs.unlinkSync(tmp);
  }
  return loadOrCreateVapidKeys(dataDir);
}

export function ensureDataDir(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
}
