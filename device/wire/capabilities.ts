// `GET /v1/capabilities` → `deviceExecutor` (§1 "Discovery before you connect").
// The lane publishes the whole description; the executor reads only what serving needs —
// `enabled`, `protocolVersion`, `wsPath` (H8). The spec names `management` but defines its shape
// elsewhere, and a server may add keys at any level: none of that is judged here, so a server
// that differs in a detail the executor does not use is never refused for it.
import { err, ok, type Result } from '../../protocol/result.ts';
import { isObject, isSafeInt } from './check.ts';

/** What this repository's lane publishes. */
export type DeviceExecutorCapability =
  | false
  | {
      enabled: true;
      protocolVersion: number;
      maxInflightPerDevice: number;
      wsPath: string;
      management: { enrollTokensPath: string; enrollPath: string };
    };

/** What the executor needs to serve: `false` when the server has no device lane. */
export type ServingCapability =
  false | { readonly protocolVersion: number; readonly wsPath: string };

/** H8: each refusal names the one thing serving needs that the response lacks. */
export const CAPABILITIES_REFUSALS = {
  not_json: 'not_json',
  not_object: 'not_object',
  device_executor_missing: 'device_executor_missing',
  device_executor_invalid: 'device_executor_invalid',
  enabled_invalid: 'enabled_invalid',
  protocol_version_invalid: 'protocol_version_invalid',
  ws_path_invalid: 'ws_path_invalid',
} as const;
export type CapabilitiesRefusal = keyof typeof CAPABILITIES_REFUSALS;

/** Longest wsPath accepted; a path, not a place for data. */
export const MAX_WS_PATH_CHARS = 1024;

/**
 * An absolute path on the same server: one leading `/` (a `//host/…` form would move the
 * connection to another host), printable ASCII without `\`, `?` or `#`.
 */
export const isWsPath = (v: unknown): v is string =>
  typeof v === 'string' &&
  v.length <= MAX_WS_PATH_CHARS &&
  /^\/(?!\/)[\x21-\x7e]*$/.test(v) &&
  !/[\\?#]/.test(v);

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

export const parseDeviceCapabilities = (
  body: unknown,
): Result<ServingCapability, CapabilitiesRefusal> => {
  if (!isObject(body)) return err('not_object', 'the capabilities response is not a JSON object');
  if (!has(body, 'deviceExecutor')) {
    return err('device_executor_missing', 'the capabilities response has no deviceExecutor key');
  }
  const d = body.deviceExecutor;
  if (d === false) return ok(false);
  if (!isObject(d)) {
    return err('device_executor_invalid', 'deviceExecutor is neither false nor an object');
  }
  if (d.enabled === false) return ok(false);
  if (d.enabled !== true) {
    return err('enabled_invalid', 'deviceExecutor.enabled must be true or false');
  }
  if (!isSafeInt(d.protocolVersion, 1)) {
    return err('protocol_version_invalid', 'deviceExecutor.protocolVersion must be an integer ≥ 1');
  }
  if (!isWsPath(d.wsPath)) {
    return err(
      'ws_path_invalid',
      'deviceExecutor.wsPath must be an absolute path on the same server (one leading /, no query, fragment or backslash)',
    );
  }
  return ok({ protocolVersion: d.protocolVersion, wsPath: d.wsPath });
};
