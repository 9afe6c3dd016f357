// The enrollment client (§1.1): one POST /v1/devices/enroll with the user's credential and a
// freshly generated public key. 429 waits exactly retry-after (never under 1 s), at most 10
// attempts; the four indistinguishable 403s get one combined explanation. The enrollment token
// and the user credential are used for the request only: never stored, never logged.
import { DEVICE_HTTP_PATHS, isDeviceId, rawEd25519PublicKey } from '../wire/index.ts';
import { delay, realTimers, type Timers } from '../timers.ts';
import {
  ensureKeyDir,
  generateDeviceKey,
  loadKey,
  loadRecord,
  saveKey,
  saveRecord,
} from './keystore.ts';
import { ENROLL_MAX_ATTEMPTS, ENROLL_MIN_RETRY_MS } from './limits.ts';
import { silentLogger, type Logger } from './log.ts';
import { parseServerUrl } from './server-url.ts';

export const ENROLL_ERRORS = {
  bad_server_url: 'bad_server_url',
  insecure_server_url: 'insecure_server_url',
  bad_argument: 'bad_argument',
  already_enrolled: 'already_enrolled',
  key_unusable: 'key_unusable',
  enrollment_invalid: 'enrollment_invalid',
  forbidden: 'forbidden',
  bad_request: 'bad_request',
  lane_off: 'lane_off',
  rate_limited: 'rate_limited',
  unreachable: 'unreachable',
  unexpected: 'unexpected',
} as const;
export type EnrollErrorCode = keyof typeof ENROLL_ERRORS;

export type EnrollResult =
  | { readonly ok: true; readonly deviceId: string; readonly attempts: number }
  | {
      readonly ok: false;
      readonly code: EnrollErrorCode;
      readonly message: string;
      readonly attempts: number;
    };

export type EnrollOptions = {
  readonly server: string;
  readonly token: string;
  readonly userToken: string;
  readonly workspaceRoot: string;
  readonly keyDir: string;
  readonly displayName?: string;
  readonly fetch?: typeof fetch;
  readonly clock?: Timers;
  readonly log?: Logger;
};

/** §1.1: one outcome, said in full — the server deliberately does not say which of these it was. */
export const ENROLLMENT_INVALID_MESSAGE =
  'Enrollment was refused. The token may have expired, may already have been used by another device, ' +
  'or may have been issued to a different account. Ask for a new enrollment token and try again.';

/** `retry-after` in whole seconds (≥ 1); anything else counts as 1 s. */
export const retryAfterMs = (header: string | null): number => {
  const s = header !== null && /^\d+$/.test(header.trim()) ? Number(header.trim()) : 1;
  return Math.max(ENROLL_MIN_RETRY_MS, s * 1000);
};

const readError = async (res: Response): Promise<{ errorCode: string; message: string }> => {
  try {
    const body = (await res.json()) as Record<string, unknown>;
    return {
      errorCode: typeof body.errorCode === 'string' ? body.errorCode : '',
      message: typeof body.message === 'string' ? body.message : '',
    };
  } catch {
    return { errorCode: '', message: '' };
  }
};

export const enrollDevice = async (opts: EnrollOptions): Promise<EnrollResult> => {
  const clock = opts.clock ?? realTimers;
  const log = opts.log ?? silentLogger;
  const doFetch = opts.fetch ?? fetch;
  const failed = (code: EnrollErrorCode, message: string, attempts = 0): EnrollResult => ({
    ok: false,
    code,
    message,
    attempts,
  });

  const server = parseServerUrl(opts.server);
  if (!server.ok) return failed(server.code, server.message);
  if (process.platform !== 'linux' && process.platform !== 'darwin') {
    return failed(
      'bad_argument',
      `platform ${process.platform} is not supported (only linux and darwin)`,
    );
  }
  if (opts.token.length === 0 || opts.token.length > 256)
    return failed('bad_argument', '--token must be 1–256 characters');
  if (opts.userToken.length === 0) return failed('bad_argument', '--user-token is required');
  if (!opts.workspaceRoot.startsWith('/'))
    return failed('bad_argument', '--workspace must be an absolute path');

  ensureKeyDir(opts.keyDir);
  const existing = loadRecord(opts.keyDir);
  if (existing) {
    return failed(
      'already_enrolled',
      `${opts.keyDir} already holds device ${existing.deviceId}; use another --key-dir to enroll again`,
    );
  }
  // A key left by an interrupted enrollment is reused: replaying the same token with the same
  // key is safe (same deviceId), a new key would be refused as token reuse.
  const loaded = loadKey(opts.keyDir);
  if (loaded && 'error' in loaded) return failed('key_unusable', loaded.error);
  const key = loaded?.key ?? generateDeviceKey();
  if (!loaded) saveKey(opts.keyDir, key);
  const pubkey = rawEd25519PublicKey(key).toString('base64');

  const body = JSON.stringify({
    token: opts.token,
    pubkey,
    platformOs: process.platform,
    platformArch: process.arch,
    workspaceRoot: opts.workspaceRoot,
    ...(opts.displayName ? { displayName: opts.displayName } : {}),
  });
  const endpoint = new URL(DEVICE_HTTP_PATHS.enroll, server.url);

  let lastFailure: 'rate_limited' | 'unreachable' = 'unreachable';
  for (let attempt = 1; attempt <= ENROLL_MAX_ATTEMPTS; attempt += 1) {
    let res: Response;
    try {
      res = await doFetch(endpoint, {
        method: 'POST',
        headers: { authorization: `Bearer ${opts.userToken}`, 'content-type': 'application/json' },
        body,
        redirect: 'error',
      });
    } catch {
      log('warn', 'enroll.unreachable', { attempt });
      lastFailure = 'unreachable';
      if (attempt === ENROLL_MAX_ATTEMPTS) break;
      await delay(clock, ENROLL_MIN_RETRY_MS * Math.min(8, 2 ** (attempt - 1)));
      continue;
    }
    log('info', 'enroll.response', { attempt, status: res.status });
    if (res.status === 200) {
      const v = (await res.json().catch(() => null)) as { deviceId?: unknown } | null;
      if (!v || typeof v.deviceId !== 'string' || !isDeviceId(v.deviceId)) {
        return failed('unexpected', 'the server answered 200 without a valid deviceId', attempt);
      }
      saveRecord(opts.keyDir, {
        deviceId: v.deviceId,
        server: server.url.origin,
        workspaceRoot: opts.workspaceRoot,
        publicKeyB64: pubkey,
        ...(opts.displayName ? { displayName: opts.displayName } : {}),
        enrolledAt: new Date(clock.now()).toISOString(),
      });
      return { ok: true, deviceId: v.deviceId, attempts: attempt };
    }
    if (res.status === 429) {
      lastFailure = 'rate_limited';
      const waitMs = retryAfterMs(res.headers.get('retry-after'));
      await res.body?.cancel();
      if (attempt === ENROLL_MAX_ATTEMPTS) break;
      log('info', 'enroll.rate_limited', { attempt, waitMs });
      await delay(clock, waitMs);
      continue;
    }
    const e = await readError(res);
    if (res.status === 403 && e.errorCode === 'device.enrollment_invalid') {
      return failed('enrollment_invalid', ENROLLMENT_INVALID_MESSAGE, attempt);
    }
    if (res.status === 403 && e.errorCode === 'auth.forbidden') {
      return failed(
        'forbidden',
        'The server did not accept your user credential (auth.forbidden). Sign in again and pass a valid --user-token.',
        attempt,
      );
    }
    if (res.status === 400) {
      return failed(
        'bad_request',
        `The server refused the enrollment request (${e.errorCode || '400'}): ${e.message || 'no detail given'}`,
        attempt,
      );
    }
    if (res.status === 501) {
      return failed(
        'lane_off',
        'This server does not run the device lane (capability.device_lane_required); there is nothing to retry against it.',
        attempt,
      );
    }
    if (res.status >= 500 && attempt < ENROLL_MAX_ATTEMPTS) {
      lastFailure = 'unreachable';
      await delay(clock, ENROLL_MIN_RETRY_MS * Math.min(8, 2 ** (attempt - 1)));
      continue;
    }
    return failed('unexpected', `unexpected answer ${res.status} ${e.errorCode}`.trim(), attempt);
  }
  return failed(
    lastFailure,
    `Gave up after ${ENROLL_MAX_ATTEMPTS} attempts. Ten failures in a row mean the token or the credential is wrong, or the server is unreachable — not that the network is slow.`,
    ENROLL_MAX_ATTEMPTS,
  );
};
