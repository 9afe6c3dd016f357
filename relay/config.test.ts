import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC_PATH, tableIn, TABLES, withTables, type TableName } from './config-doc.ts';
import { DEFAULT_SETTINGS, SETTING_SPECS, helpText, parseSettings } from './config.ts';

describe('relay settings: flags win over RELAY_* variables, which win over defaults', () => {
  it('defaults (D2, D3)', () => {
    const r = parseSettings([], {});
    expect(r).toEqual({ ok: true, help: false, settings: DEFAULT_SETTINGS });
    expect(DEFAULT_SETTINGS).toMatchObject({
      host: '127.0.0.1',
      port: 8787,
      dataDir: '.data/relay',
      helloDeadlineMs: 5_000,
      pingIntervalMs: 25_000,
      maxRoomsPerSocket: 32,
      maxPhonesPerRoom: 8,
      maxMachinesPerRoom: 2,
      maxConnectionsPerIp: 32,
      msgRatePerSec: 20,
      msgBurst: 100,
      maxSubscriptionsPerRoom: 10,
      pushRatePerMin: 10,
      pushBurst: 20,
      maxBufferedBytes: 1_048_576,
      subscriptionTtlDays: 60,
      rateLimits: true,
      // H1, H2
      pushRatePerMinPerIp: 30,
      pushBurstPerIp: 40,
      maxSubscriptionsPerIp: 100,
      maxSubscriptions: 50_000,
      maxConcurrentPushes: 32,
      maxQueuedPushes: 512,
      pushTimeoutMs: 10_000,
      subscriptionMachineDays: 60,
      subscriptionGraceSec: 3_600,
    });
  });
  it('environment variables, then flags (both --x v and --x=v)', () => {
    const r = parseSettings(['--port', '0', '--host=0.0.0.0'], {
      RELAY_PORT: '9000',
      RELAY_DATA_DIR: '/tmp/d',
      RELAY_VAPID_SUBJECT: 'mailto:a@b.c',
    });
    expect(r.ok && r.settings).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      dataDir: '/tmp/d',
      vapidSubject: 'mailto:a@b.c',
    });
  });
  it('--unsafe-allow-push-origin is repeatable; the env var is comma-separated', () => {
    const r = parseSettings(
      [
        '--unsafe-allow-push-origin',
        'http://127.0.0.1:1',
        '--unsafe-allow-push-origin=http://127.0.0.1:2',
      ],
      {},
    );
    expect(r.ok && r.settings.unsafeAllowPushOrigins).toEqual([
      'http://127.0.0.1:1',
      'http://127.0.0.1:2',
    ]);
    const e = parseSettings([], { RELAY_UNSAFE_ALLOW_PUSH_ORIGINS: 'http://a:1, http://b:2' });
    expect(e.ok && e.settings.unsafeAllowPushOrigins).toEqual(['http://a:1', 'http://b:2']);
  });
  it('--no-rate-limits and RELAY_RATE_LIMITS=0 turn rate limits off', () => {
    expect(parseSettings(['--no-rate-limits'], {})).toMatchObject({
      settings: { rateLimits: false },
    });
    expect(parseSettings([], { RELAY_RATE_LIMITS: '0' })).toMatchObject({
      settings: { rateLimits: false },
    });
  });
  it.each([[['--port', 'abc']], [['--port']], [['--bogus', '1']], [['stray']]])(
    'refuses %j with a message',
    (argv) => {
      const r = parseSettings(argv, {});
      expect(r.ok).toBe(false);
    },
  );
  it('refuses a bad environment value', () => {
    expect(parseSettings([], { RELAY_MAX_CONNECTIONS: '-1' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('RELAY_MAX_CONNECTIONS'),
    });
  });
  it('every limit has a flag and an environment variable, and --help lists each', () => {
    const help = helpText();
    for (const key of Object.keys(DEFAULT_SETTINGS)) {
      const spec = SETTING_SPECS.find((s) => s.key === key);
      expect(spec, key).toBeDefined();
      expect(help).toContain(`--${spec?.flag}`);
      expect(help).toContain(spec?.env);
    }
  });
  it('docs/relay.md documents every flag and environment variable', () => {
    const doc = fs.readFileSync(new URL('../docs/relay.md', import.meta.url), 'utf8');
    for (const spec of SETTING_SPECS) {
      expect(doc, spec.flag).toContain(`\`--${spec.flag}\``);
      expect(doc, spec.env).toContain(`\`${spec.env}\``);
    }
  });
});

describe('P7: one options table', () => {
  it("P7: docs/relay.md's option tables are the generated ones (npx tsx relay/config-doc.ts)", () => {
    const doc = fs.readFileSync(DOC_PATH, 'utf8');
    for (const name of Object.keys(TABLES) as TableName[])
      expect(tableIn(doc, name), name).toEqual(TABLES[name]());
    expect(withTables(doc)).toBe(doc);
  });
  it('P7: every setting is in exactly one of the two tables, and --help lists each with its parser-shown default', () => {
    const rows = [...TABLES.options(), ...TABLES.limits()].join('\n');
    const help = helpText();
    for (const s of SETTING_SPECS) {
      expect(rows.split(`\`${s.env}\``).length - 1, s.env).toBe(1);
      expect(help).toContain(`${s.env}, default ${s.shown}`);
      // The default is what its own parser makes of the shown text (switches and lists aside).
      if (s.form === 'value' && s.default !== undefined)
        expect(s.parse(s.shown), s.env).toEqual({ ok: true, value: s.default });
    }
  });
  it('P7: a parser refuses with the flag or variable named', () => {
    expect(parseSettings(['--path', 'no-slash'], {})).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^--path: must be "\/"/),
    });
    expect(parseSettings([], { RELAY_METRICS: 'maybe' })).toEqual({
      ok: false,
      message: 'RELAY_METRICS: invalid value "maybe"',
    });
  });
});
