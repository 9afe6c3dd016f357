import { describe, expect, it } from 'vitest';
import { parseDeviceCapabilities } from './capabilities.ts';

const lane = {
  enabled: true,
  protocolVersion: 1,
  maxInflightPerDevice: 4,
  wsPath: '/v1/device/ws',
  management: { enrollTokensPath: '/v1/devices/enroll-tokens', enrollPath: '/v1/devices/enroll' },
};
const serving = { protocolVersion: 1, wsPath: '/v1/device/ws' };
const withDevice = (d: Record<string, unknown>) => ({ deviceExecutor: { ...lane, ...d } });

describe('H8: capabilities — only what serving needs is judged', () => {
  it('H8: the lane’s own description, and `deviceExecutor: false` (lane off)', () => {
    expect(parseDeviceCapabilities({ deviceExecutor: lane })).toEqual({ ok: true, value: serving });
    expect(parseDeviceCapabilities({ deviceExecutor: false })).toEqual({ ok: true, value: false });
    expect(parseDeviceCapabilities(withDevice({ enabled: false }))).toEqual({
      ok: true,
      value: false,
    });
  });

  it('H8: `management: {}`, any other management value, or none at all is accepted', () => {
    for (const management of [{}, { other: 1 }, 'elsewhere', null, [], undefined]) {
      expect(parseDeviceCapabilities(withDevice({ management }))).toEqual({
        ok: true,
        value: serving,
      });
    }
  });

  it('H8: unknown keys at every level, and fields serving does not use, are ignored', () => {
    const body = {
      deviceExecutor: {
        ...lane,
        maxInflightPerDevice: 'many',
        management: { enrollTokensPath: 7, nested: { deeper: [1, { x: null }] } },
        futureFlag: true,
        limits: { maxFrameBytes: 1048576 },
      },
      assistant: { streaming: true },
      version: '9.9.9',
      deviceExecutorV2: { enabled: true },
    };
    expect(parseDeviceCapabilities(body)).toEqual({ ok: true, value: serving });
    const bare = { deviceExecutor: { enabled: true, protocolVersion: 2, wsPath: '/ws' } };
    expect(parseDeviceCapabilities(bare)).toEqual({
      ok: true,
      value: { protocolVersion: 2, wsPath: '/ws' },
    });
  });

  it('H8: each refusal names what serving needs, with a stable code', () => {
    const cases: Array<[unknown, string]> = [
      [null, 'not_object'],
      [[lane], 'not_object'],
      ['{}', 'not_object'],
      [{}, 'device_executor_missing'],
      [{ devices: lane }, 'device_executor_missing'],
      [{ deviceExecutor: true }, 'device_executor_invalid'],
      [{ deviceExecutor: null }, 'device_executor_invalid'],
      [{ deviceExecutor: [lane] }, 'device_executor_invalid'],
      [withDevice({ enabled: undefined }), 'enabled_invalid'],
      [withDevice({ enabled: 'yes' }), 'enabled_invalid'],
      [withDevice({ protocolVersion: undefined }), 'protocol_version_invalid'],
      [withDevice({ protocolVersion: '1' }), 'protocol_version_invalid'],
      [withDevice({ protocolVersion: 0 }), 'protocol_version_invalid'],
      [withDevice({ protocolVersion: 1.5 }), 'protocol_version_invalid'],
      [withDevice({ wsPath: undefined }), 'ws_path_invalid'],
      [withDevice({ wsPath: 'v1/device/ws' }), 'ws_path_invalid'],
      [withDevice({ wsPath: '//evil.example/ws' }), 'ws_path_invalid'],
      [withDevice({ wsPath: 'wss://evil.example/ws' }), 'ws_path_invalid'],
      [withDevice({ wsPath: '/ws?token=x' }), 'ws_path_invalid'],
      [withDevice({ wsPath: '/ws#x' }), 'ws_path_invalid'],
      [withDevice({ wsPath: '/\\evil.example' }), 'ws_path_invalid'],
      [withDevice({ wsPath: '/a b' }), 'ws_path_invalid'],
      [withDevice({ wsPath: `/${'a'.repeat(1024)}` }), 'ws_path_invalid'],
    ];
    for (const [body, code] of cases) {
      const r = parseDeviceCapabilities(body);
      expect(r, JSON.stringify(body)?.slice(0, 80)).toMatchObject({ ok: false, code });
      expect(r.ok ? '' : r.message).not.toBe('');
    }
  });
});
