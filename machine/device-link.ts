import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startDeviceLane, type DeviceLane, type DeviceLaneOptions } from '../device/lane/index.ts';
import { makeDeviceToolHost } from './device-tool-host.ts';
import { makeLocalToolHost } from './local-tool-host.ts';
import type { Log } from './log.ts';
import { StateError, writePrivateFile } from './state-dir.ts';
import type { ToolHost, ToolHostProvider } from './tool-host.ts';

// `--device-lane-port`: the machine hosts the device lane and, while an enrolled device is
// connected, the scripted agent's tools run on it; otherwise here. The user credential (the
// lane's stand-in for a signed-in user) is made once from the CSPRNG and kept owner-only in the
// state dir, like the pairing secret; the lane's registry lives beside it so a restart remembers
// enrolled devices.

export const DEVICE_CREDENTIAL_FILE = 'device-user-credential';
export const DEVICE_LANE_DIR = 'device-lane';
export const DEVICE_OWNER = 'owner';
const CREDENTIAL_BYTES = 32;

export function loadOrCreateCredential(stateDir: string): string {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  if ((statSync(stateDir).mode & 0o077) !== 0) chmodSync(stateDir, 0o700);
  const file = path.join(stateDir, DEVICE_CREDENTIAL_FILE);
  try {
    const text = readFileSync(file, 'utf8').trim();
    if (Buffer.from(text, 'base64url').length !== CREDENTIAL_BYTES) {
      throw new StateError('secret-corrupt', `${file} does not hold a device credential`);
    }
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    return text;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const credential = randomBytes(CREDENTIAL_BYTES).toString('base64url');
  writePrivateFile(file, credential + '\n');
  return credential;
}

export type DeviceLink = {
  readonly lane: DeviceLane;
  readonly credential: string;
  /** Per tool call: the connected device's host, else the local one. */
  readonly provider: ToolHostProvider;
  /** The command a user runs on the device, with a fresh single-use token. */
  enrollCommand(workspace: string): string;
  close(): Promise<void>;
};

export async function startDeviceLink(o: {
  /** The machine's state dir (created 0700 when missing). */
  stateDir: string;
  port: number;
  host?: string;
  /** The machine's allowed roots (resolved): local containment and device path mapping. */
  roots: readonly string[];
  log: Log;
  /** Lane timing overrides (tests prove the device-gone paths in milliseconds). */
  lane?: Pick<DeviceLaneOptions, 'reconnectGraceMs' | 'heartbeatIntervalMs' | 'cancelGraceMs'>;
}): Promise<DeviceLink> {
  const credential = loadOrCreateCredential(o.stateDir);
  const local = makeLocalToolHost({ roots: o.roots });
  const hosts = new Map<string, ToolHost>();
  const lane = await startDeviceLane({
    ...o.lane,
    dataDir: path.join(o.stateDir, DEVICE_LANE_DIR),
    port: o.port,
    host: o.host ?? '127.0.0.1',
    users: { [credential]: DEVICE_OWNER },
    onDeviceState: (deviceId, online) =>
      o.log('info', online ? 'device-online' : 'device-offline', `device ${deviceId}`),
  });

  const hostFor = (deviceId: string, workspaceRoot: string): ToolHost => {
    const key = `${deviceId}\n${workspaceRoot}`;
    let h = hosts.get(key);
    if (h === undefined) {
      h = makeDeviceToolHost({ lane, deviceId, label: deviceId, workspaceRoot, roots: o.roots });
      hosts.set(key, h);
    }
    return h;
  };

  return {
    lane,
    credential,
    provider: () => {
      const device = lane.devices().find((d) => d.online && d.revokedAt === null);
      return device === undefined ? local : hostFor(device.deviceId, device.workspaceRoot);
    },
    enrollCommand: (workspace) => {
      const { token } = lane.issueEnrollmentToken(DEVICE_OWNER);
      // `--flag=value`: a base64url token or credential may begin with '-', which the separate
      // form would read as another option.
      return `npm run device -- enroll --server ${lane.url} --token=${token} --user-token=${credential} --workspace ${workspace}`;
    },
    async close() {
      await Promise.all([...hosts.values()].map((h) => h.close()));
      await local.close();
      await lane.close();
    },
  };
}
