// §1 "Discovery before you connect": GET /v1/capabilities, read wsPath from deviceExecutor, and
// refuse to start when the lane is off or speaks another protocol version. H8: only what
// serving needs is judged (wire/capabilities.ts); each refusal carries its reason.
import {
  DEVICE_HTTP_PATHS,
  DEVICE_PROTOCOL_VERSION,
  parseDeviceCapabilities,
  type CapabilitiesRefusal,
} from '../wire/index.ts';
import { isAllowedWsUrl, parseServerUrl, wsUrlFor } from './server-url.ts';
import { ExecutorStartError } from './start-error.ts';

const refused = (origin: string, reason: CapabilitiesRefusal, message: string) =>
  new ExecutorStartError(
    'bad_capabilities',
    `${origin}: ${message} (${reason}); refusing to start`,
    reason,
  );

export const readCapabilities = async (
  server: string,
  doFetch: typeof fetch,
): Promise<{ wsUrl: URL }> => {
  const parsed = parseServerUrl(server);
  if (!parsed.ok) throw new ExecutorStartError(parsed.code, parsed.message);
  const origin = parsed.url.origin;
  let text: string;
  try {
    const res = await doFetch(new URL(DEVICE_HTTP_PATHS.capabilities, parsed.url), {
      redirect: 'error',
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    text = await res.text();
  } catch (e) {
    throw new ExecutorStartError(
      'unreachable',
      `could not read ${DEVICE_HTTP_PATHS.capabilities} from ${origin} (${e instanceof Error ? e.message : 'error'})`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw refused(origin, 'not_json', 'the capabilities response is not JSON');
  }
  const caps = parseDeviceCapabilities(body);
  if (!caps.ok) throw refused(origin, caps.code, caps.message);
  if (caps.value === false) {
    throw new ExecutorStartError(
      'lane_off',
      `${parsed.url.origin} does not run the device lane (deviceExecutor: false); refusing to start`,
    );
  }
  // A newer server may still accept us (the handshake decides); an older one cannot.
  if (caps.value.protocolVersion < DEVICE_PROTOCOL_VERSION) {
    throw new ExecutorStartError(
      'protocol_version_unsupported',
      `${parsed.url.origin} speaks device protocol ${caps.value.protocolVersion}; this executor speaks ${DEVICE_PROTOCOL_VERSION}`,
    );
  }
  const wsUrl = wsUrlFor(parsed.url, caps.value.wsPath);
  if (wsUrl.host !== parsed.url.host) {
    throw refused(origin, 'ws_path_invalid', `wsPath leads to ${wsUrl.host}, another server`);
  }
  if (!isAllowedWsUrl(wsUrl)) {
    throw new ExecutorStartError(
      'insecure_server_url',
      `refusing ${wsUrl.protocol}// to ${wsUrl.hostname} (X1)`,
    );
  }
  return { wsUrl };
};
