import { err, ok, type Result } from '../../protocol/result.ts';
import {
  DEVICE_PLATFORM_OS,
  type DeviceHttpErrorCode,
  type DevicePlatformOs,
} from './closed-sets.ts';
import { isObject, isSafeInt } from './check.ts';

/** §1.1 bodies of the management plane. */
export type EnrollTokenResponse = { token: string; expiresAt: string; ttlSec: number };
export type EnrollRequest = {
  token: string;
  pubkey: string;
  platformOs: DevicePlatformOs;
  platformArch?: string;
  displayName?: string;
  workspaceRoot: string;
};
export type EnrollResponse = { deviceId: string };
export type HttpErrorBody = { errorCode: DeviceHttpErrorCode; message: string };

export const ENROLL_REQUIRED_KEYS = ['token', 'pubkey', 'platformOs', 'workspaceRoot'] as const;
export const ENROLL_OPTIONAL_KEYS = ['platformArch', 'displayName'] as const;
export const isPlatformOs = (v: unknown): v is DevicePlatformOs =>
  typeof v === 'string' && Object.prototype.hasOwnProperty.call(DEVICE_PLATFORM_OS, v);

/** `GET /v1/capabilities` → `deviceExecutor`: `false`, or the lane's description. */
export type DeviceExecutorCapability =
  | false
  | {
      enabled: true;
      protocolVersion: number;
      maxInflightPerDevice: number;
      wsPath: string;
      management: { enrollTokensPath: string; enrollPath: string };
    };

/** For the executor: reads `deviceExecutor` out of a capabilities response body. */
export const parseDeviceCapabilities = (
  body: unknown,
): Result<DeviceExecutorCapability, 'bad_capabilities'> => {
  if (!isObject(body) || !('deviceExecutor' in body)) {
    return err('bad_capabilities', 'capabilities has no deviceExecutor key');
  }
  const d = body.deviceExecutor;
  if (d === false) return ok(false);
  if (
    isObject(d) &&
    d.enabled === true &&
    isSafeInt(d.protocolVersion, 0) &&
    isSafeInt(d.maxInflightPerDevice, 1) &&
    typeof d.wsPath === 'string' &&
    d.wsPath.startsWith('/') &&
    isObject(d.management) &&
    typeof d.management.enrollTokensPath === 'string' &&
    typeof d.management.enrollPath === 'string'
  ) {
    return ok(d as DeviceExecutorCapability);
  }
  return err('bad_capabilities', 'deviceExecutor is neither false nor a valid lane description');
};
