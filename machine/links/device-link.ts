import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  startDeviceLane,
  type DeviceLane,
  type DeviceLaneOptions,
} from '../../device/lane/index.ts';
import { makeDeviceToolHost } from './device-tool-host.ts';
import { makeLocalToolHost } from './local-tool-host.ts';
import type { Log } from '../log.ts';
import { StateError, writePrivateFile } from './state-dir.ts';
import type { ToolHost, ToolHostProvider } from './tool-host.ts';

// `--device-lane-port`: the machine hosts the device lane and, while the chosen enrolled device is
// connected, the scripted agent's tools run on it; otherwise here. The user credential (the
// lane's stand-in for a signed-in user) is made once from the CSPRNG and kept owner-only in the
// state dir, like the pairing secret; the lane's registry lives beside it so a restart remembers
// enrolled devices.
//
// H6: the credential is long-lived, so it is never printed and never put on a command line
// (other users of the device can read command lines in `ps`): the enrollment command passes both
// secrets in the environment and reads the credential from its owner-only file. With several
// devices enrolled, tools run on the one the user chose (`--device`) or the one enrolled last,
// never on whichever happens to be online.

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
  /** Where the credential lives (owner-only): the enrollment command reads it from there. */
  readonly credentialFile: string;
  /** Per tool call: the chosen device's host while it is connected, else the local one. */
  readonly provider: ToolHostProvider;
  /** The device tools run on when it is connected (`--device`, else the last enrolled). */
  chosen(): { deviceId: string; online: boolean; why: 'chosen' | 'last-enrolled' } | null;
  /** The command a user runs on the device, with a fresh single-use token, secrets in env. */
  enrollCommand(workspace: string): string;
  close(): Promise<void>;
};

/** A word the shell takes literally. */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export class DeviceChoiceError extends Error {
  readonly code = 'device-unknown';
}

export async function startDeviceLink(o: {
  /** The machine's state dir (created 0700 when missing). */
  stateDir: string;
  port: number;
  host?: string;
  /** The machine's allowed roots (resolved): local containment and device path mapping. */
  roots: readonly string[];
  log: Log;
  /** `--device`: the enrolled device tools run on; absent = the one enrolled last. */
  device?: string;
  /** Lane timing overrides (tests prove the device-gone paths in milliseconds). */
  lane?: Pick<DeviceLaneOptions, 'reconnectGraceMs' | 'heartbeatIntervalMs' | 'cancelGraceMs'>;
}): Promise<DeviceLink> {
  const credential = loadOrCreateCredential(o.stateDir);
  const credentialFile = path.resolve(o.stateDir, DEVICE_CREDENTIAL_FILE);
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

  let closing: Promise<void> | undefined;
  const pick = () => {
    const enrolled = lane.devices().filter((d) => d.revokedAt === null);
    return o.device !== undefined
      ? enrolled.find((d) => d.deviceId === o.device)
      : enrolled[enrolled.length - 1]; // the registry lists them in enrollment order
  };
  if (o.device !== undefined && pick() === undefined) {
    const known = lane
      .devices()
      .filter((d) => d.revokedAt === null)
      .map((d) => d.deviceId);
    await lane.close();
    throw new DeviceChoiceError(
      `--device ${o.device} is not an enrolled device here (enrolled: ${known.join(', ') || 'none'})`,
    );
  }

  return {
    lane,
    credential,
    credentialFile,
    provider: () => {
      const device = pick();
      return device?.online === true ? hostFor(device.deviceId, device.workspaceRoot) : local;
    },
    chosen: () => {
      const d = pick();
      return d === undefined
        ? null
        : {
            deviceId: d.deviceId,
            online: d.online,
            why: o.device !== undefined ? 'chosen' : 'last-enrolled',
          };
    },
    enrollCommand: (workspace) => {
      const { token } = lane.issueEnrollmentToken(DEVICE_OWNER);
      // The single-use token (15 minutes) is shown; the long-lived credential only as where to
      // read it. Both reach the executor through its environment, never its arguments.
      return (
        `DSH_DEVICE_TOKEN=${token} DSH_DEVICE_USER_TOKEN="$(cat ${shellQuote(credentialFile)})" ` +
        `npm run device -- enroll --server ${lane.url} --workspace ${shellQuote(workspace)}`
      );
    },
    close() {
      closing ??= (async () => {
        await Promise.all([...hosts.values()].map((h) => h.close()));
        await local.close();
        await lane.close();
      })();
      return closing;
    },
  };
}
