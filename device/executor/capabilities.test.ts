// H8 against the real lane: the fault proxy rewrites GET /v1/capabilities into what another
// server might send, and `serve` (startExecutor) starts — or refuses with a stable code — on
// what it actually needs: enabled, protocolVersion, wsPath.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_HTTP_PATHS } from '../wire/index.ts';
import { makeHarness, type Harness } from './test-support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await makeHarness();
});
afterAll(async () => h.close());

/** Serves `make(lane's own deviceExecutor)` as the capabilities body. */
const serveCapabilities = (make: (d: Record<string, unknown>) => unknown) =>
  h.proxy.setHttpRewrite((path, body) => {
    if (path !== DEVICE_HTTP_PATHS.capabilities) return null;
    const d = (JSON.parse(body) as { deviceExecutor: Record<string, unknown> }).deviceExecutor;
    const out = make(d);
    return typeof out === 'string' ? out : JSON.stringify(out);
  });

describe('H8: serve reads only what serving needs from /v1/capabilities', () => {
  it('H8: each refusal that remains has a stable code and reason, and leaves the lock free', async () => {
    const cases: Array<[(d: Record<string, unknown>) => unknown, string]> = [
      [() => 'not json {', 'not_json'],
      [(d) => ({ devices: d }), 'device_executor_missing'],
      [(d) => ({ deviceExecutor: { ...d, enabled: 'yes' } }), 'enabled_invalid'],
      [
        (d) => ({ deviceExecutor: { ...d, protocolVersion: undefined } }),
        'protocol_version_invalid',
      ],
      [(d) => ({ deviceExecutor: { ...d, wsPath: undefined } }), 'ws_path_invalid'],
      [(d) => ({ deviceExecutor: { ...d, wsPath: '//127.0.0.2:1/ws' } }), 'ws_path_invalid'],
    ];
    for (const [make, reason] of cases) {
      serveCapabilities(make);
      await expect(h.start(), reason).rejects.toMatchObject({
        code: 'bad_capabilities',
        reason,
        message: expect.stringContaining(reason),
      });
    }
    serveCapabilities((d) => ({ deviceExecutor: { ...d, enabled: false } }));
    await expect(h.start()).rejects.toMatchObject({ code: 'lane_off' });
  });

  it('H8: `management: {}` and unknown keys at every level: serve starts and runs instructions', async () => {
    serveCapabilities((d) => ({
      deviceExecutor: {
        enabled: d.enabled,
        protocolVersion: d.protocolVersion,
        wsPath: d.wsPath,
        management: {},
        maxInflightPerDevice: 'unbounded',
        futureFlag: { nested: [1, { deeper: null }] },
      },
      assistant: { models: ['x'] },
      serverVersion: '99.0.0',
    }));
    await h.online();
    const r = await h.lane.dispatch(h.deviceId, { kind: 'exists', args: { path: h.workspace } })
      .outcome;
    expect(r).toEqual({ ok: true, kind: 'stat', existsValue: true });
  });
});
