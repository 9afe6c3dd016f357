import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  DEVICE_HTTP_PATHS,
  type DeviceExecutorCapability,
  type DeviceHttpErrorCode,
} from '../wire/index.ts';
import { parseEnrollBody, parseEnrollTokensBody } from './enroll-body.ts';
import type { LaneConfig } from './options.ts';
import { makeFixedWindowLimiter, type RateLimiter } from './rate-limit.ts';
import type { Registry } from './registry.ts';

const MAX_BODY_BYTES = 16 * 1024;

/**
 * The four refusals of a valid-looking enrollment share this exact body (anti-enumeration, §1.1):
 * the finer reason goes to the audit trail only.
 */
export const ENROLLMENT_INVALID_BODY = JSON.stringify({
  errorCode: 'device.enrollment_invalid',
  message:
    'Enrollment was refused. The token may have expired, may already have been used by another device, or may have been issued to a different account. Ask for a new enrollment token and try again.',
});

type Audit = (event: string, deviceId: string | null, detail: object) => void;

export const makeHttpPlane = (deps: {
  config: LaneConfig;
  registry: Registry | undefined;
  capability: () => DeviceExecutorCapability;
  audit: Audit;
}) => {
  const { config } = deps;
  const limiter: RateLimiter =
    config.rateLimiter ??
    makeFixedWindowLimiter({
      limit: config.enrollRateLimit.requests,
      windowMs: config.enrollRateLimit.windowMs,
      now: config.now,
    });
  // Credentials are compared as digests so their length and content never steer timing.
  const users = Object.entries(config.users).map(([token, user]) => ({
    digest: createHash('sha256').update(token).digest(),
    user,
  }));
  const identify = (req: IncomingMessage): string | undefined => {
    const m = /^Bearer ([\x21-\x7e]{1,512})$/.exec(req.headers.authorization ?? '');
    if (m === null) return undefined;
    const d = createHash('sha256')
      .update(m[1] as string)
      .digest();
    return users.find((u) => timingSafeEqual(u.digest, d))?.user;
  };

  const send = (
    res: ServerResponse,
    status: number,
    body: string,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      ...headers,
    });
    res.end(body);
  };
  const fail = (
    res: ServerResponse,
    status: number,
    errorCode: DeviceHttpErrorCode,
    message: string,
    headers?: Record<string, string>,
  ) => send(res, status, JSON.stringify({ errorCode, message }), headers);

  const readBody = (req: IncomingMessage): Promise<string | null> =>
    new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY_BYTES) {
          resolve(null);
          req.destroy();
          return;
        }
        parts.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      req.on('error', reject);
    });

  /** Common gate of both enrollment endpoints: lane on, identity, then the rate budget. */
  const gate = (
    req: IncomingMessage,
    res: ServerResponse,
    bucket: 'issue' | 'enroll',
  ): string | undefined => {
    if (!config.enabled || deps.registry === undefined) {
      fail(
        res,
        501,
        'capability.device_lane_required',
        'this deployment does not run the device lane',
      );
      return undefined;
    }
    const user = identify(req);
    if (user === undefined) {
      fail(
        res,
        403,
        'auth.forbidden',
        'no verified identity: send Authorization: Bearer <your credential>',
      );
      return undefined;
    }
    let decision;
    try {
      decision = limiter.take(`${bucket}:${user}`);
    } catch {
      // Fail closed: a limiter that cannot answer must not let token guessing through.
      decision = { allowed: false as const, retryAfterSec: 1 };
    }
    if (!decision.allowed) {
      deps.audit('enroll_rate_limited', null, { bucket, user });
      fail(
        res,
        429,
        'limit.rate_exceeded',
        `too many ${bucket === 'issue' ? 'token requests' : 'enrollment attempts'}; retry after ${decision.retryAfterSec} s`,
        {
          'retry-after': String(decision.retryAfterSec),
        },
      );
      return undefined;
    }
    return user;
  };

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://lane').pathname;
    if (req.method === 'GET' && path === DEVICE_HTTP_PATHS.capabilities) {
      send(res, 200, JSON.stringify({ deviceExecutor: deps.capability() }));
      return;
    }
    if (req.method === 'POST' && path === DEVICE_HTTP_PATHS.enrollTokens) {
      const user = gate(req, res, 'issue');
      if (user === undefined) return;
      const text = await readBody(req);
      const body = text === null ? null : parseEnrollTokensBody(text);
      if (body === null) return fail(res, 400, 'request.body_shape', 'the body is too large');
      if (!body.ok) return fail(res, 400, body.code, body.message);
      const issued = deps.registry!.issueToken(user, config.now(), config.enrollTokenTtlSec);
      deps.audit('enroll_token_issued', null, { user });
      send(res, 200, JSON.stringify(issued));
      return;
    }
    if (req.method === 'POST' && path === DEVICE_HTTP_PATHS.enroll) {
      const user = gate(req, res, 'enroll');
      if (user === undefined) return;
      const text = await readBody(req);
      const body = text === null ? null : parseEnrollBody(text);
      if (body === null) return fail(res, 400, 'request.body_shape', 'the body is too large');
      if (!body.ok) return fail(res, 400, body.code, body.message);
      const r = deps.registry!.enroll({ owner: user, ...body.value }, config.now());
      if (!r.ok) {
        deps.audit('enroll_refused', null, { reason: r.reason, user });
        send(res, 403, ENROLLMENT_INVALID_BODY);
        return;
      }
      deps.audit(r.replay ? 'enroll_replayed' : 'device_enrolled', r.deviceId, { user });
      send(res, 200, JSON.stringify({ deviceId: r.deviceId }));
      return;
    }
    fail(res, 404, 'request.not_found', `no route ${req.method ?? ''} ${path.slice(0, 200)}`);
  };
};
