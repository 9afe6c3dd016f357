// §1 "Discovery before you connect": GET /v1/capabilities, read wsPath from deviceExecutor, and
// refuse to start when the lane is off or speaks another protocol version.
import {
  DEVICE_HTTP_PATHS,
  DEVICE_PROTOCOL_VERSION,
  parseDeviceCapabilities,
} from '../wire/index.ts';
import { isAllowedWsUrl, parseServerUrl, wsUrlFor } from './server-url.ts';
import { ExecutorStartError } from './start-error.ts';

export const readCapabilities = async (
  server: string,
  doFetch: typeof fetch,
): Promise<{ wsUrl: URL }> => {
  const parsed = parseServerUrl(server);
  if (!parsed.ok) throw new ExecutorStartError(parsed.code, parsed.message);
  let body: unknown;
  try {
    const res = await doFetch(new URL(DEVICE_HTTP_PATHS.capabilities, parsed.url), {
      redirect: 'error',
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    body = await res.json();
  } catch (e) {
    throw new ExecutorStartError(
      'unreachable',
      `could not read ${DEVICE_HTTP_PATHS.capabilities} from ${parsed.url.origin} (${e instanceof Error ? e.message : 'error'})`,
    );
  }
  const caps = parseDeviceCapabilities(body);
  if (!caps.ok)
    throw new ExecutorStartError('unreachable', `${parsed.url.origin}: ${caps.message}`);
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
  if (!isAllowedWsUrl(wsUrl)) {
    throw new ExecutorStartError(
      'insecure_server_url',
      `refusing ${wsUrl.protocol}// to ${wsUrl.hostname} (X1)`,
    );
  }
  return { wsUrl };
};
