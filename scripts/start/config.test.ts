import { describe, expect, it } from 'vitest';
import { readStartConfig, StartConfigError } from './config.ts';

describe('npm start settings: all state in .data/, ports overridable', () => {
  it('defaults: .data/ under the repository, relay 8787, app 4173, lane 8790, no public URLs', () => {
    expect(readStartConfig({}, '/repo')).toEqual({
      dataDir: '/repo/.data',
      relayPort: 8787,
      appPort: 4173,
      lanePort: 8790,
      vapidSubject: 'mailto:demo@dsh-dispatch.invalid',
      machineName: 'demo',
      publicRelayUrl: undefined,
      publicAppUrl: undefined,
      lan: false,
      lanHost: undefined,
      lanPort: 8443,
      lanCaPort: 8080,
      verbose: false,
    });
  });

  it('U5: --verbose shows the comings and goings; it combines with --lan', () => {
    expect(readStartConfig({}, '/repo', ['--verbose']).verbose).toBe(true);
    expect(readStartConfig({}, '/repo', ['--lan', '--verbose'])).toMatchObject({
      lan: true,
      verbose: true,
    });
  });

  it('P4: --lan or DSH_LAN=1 turns on LAN mode; its host and ports move by environment', () => {
    expect(readStartConfig({}, '/repo', ['--lan']).lan).toBe(true);
    expect(readStartConfig({ DSH_LAN: '1' }, '/repo').lan).toBe(true);
    expect(readStartConfig({ DSH_LAN: '0' }, '/repo').lan).toBe(false);
    expect(
      readStartConfig(
        { DSH_LAN_HOST: '192.168.1.20', DSH_LAN_PORT: '9443', DSH_LAN_CA_PORT: '9080' },
        '/repo',
      ),
    ).toMatchObject({ lanHost: '192.168.1.20', lanPort: 9443, lanCaPort: 9080 });
    expect(readStartConfig({ DSH_LAN_HOST: 'laptop.lan' }, '/repo').lanHost).toBe('laptop.lan');
  });

  it('P4: an unknown option is refused with bad-start-env', () => {
    expect(() => readStartConfig({}, '/repo', ['--lna'])).toThrow(StartConfigError);
  });

  it('every setting moves by environment; public URLs are checked for their scheme', () => {
    const c = readStartConfig(
      {
        DSH_DATA_DIR: '/tmp/d',
        DSH_RELAY_PORT: '1',
        DSH_APP_PORT: '65535',
        DSH_DEVICE_LANE_PORT: '9000',
        DSH_PUBLIC_RELAY_URL: 'wss://laptop.lan:8443',
        DSH_PUBLIC_APP_URL: 'https://laptop.lan/',
      },
      '/repo',
    );
    expect(c).toMatchObject({
      dataDir: '/tmp/d',
      relayPort: 1,
      appPort: 65535,
      lanePort: 9000,
      publicRelayUrl: 'wss://laptop.lan:8443',
      publicAppUrl: 'https://laptop.lan',
    });
  });

  it.each([
    ['DSH_RELAY_PORT', '0'],
    ['DSH_APP_PORT', '70000'],
    ['DSH_DEVICE_LANE_PORT', 'x'],
    ['DSH_PUBLIC_RELAY_URL', 'https://laptop.lan'],
    ['DSH_PUBLIC_APP_URL', 'laptop.lan'],
    ['DSH_LAN_PORT', '0'],
    ['DSH_LAN_CA_PORT', '99999'],
    ['DSH_LAN_HOST', 'http://laptop.lan'],
  ])('a bad %s (%s) is refused with bad-start-env naming it', (name, value) => {
    let error: unknown;
    try {
      readStartConfig({ [name]: value }, '/repo');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StartConfigError);
    expect((error as StartConfigError).code).toBe('bad-start-env');
    expect((error as Error).message).toContain(name);
  });
});
