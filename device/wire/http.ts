import {
  DEVICE_PLATFORM_OS,
  type DeviceHttpErrorCode,
  type DevicePlatformOs,
} from './closed-sets.ts';

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
