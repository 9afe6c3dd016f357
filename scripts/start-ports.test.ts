import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { START_ENV } from './start/config.ts';
import { freePort, freePorts } from '../testkit/ports.ts';
import { npmStartRefused } from './test-support/npm-start.ts';

// P4: with one of its ports taken, `npm start` says so in one line naming the variable that
// moves it, and exits before starting anything (it used to print vite's stack trace).

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dsh-start-ports-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const held: net.Server[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((s) => new Promise((r) => s.close(r))));
});
const hold = (port: number) =>
  new Promise<void>((resolve) => {
    const s = net.createServer();
    held.push(s);
    s.listen(port, '127.0.0.1', () => resolve());
  });

describe('P4: npm start with its ports already in use', () => {
  it('P4: every taken port (relay, app, device lane, and with --lan Caddy and the CA download) is one line with the variable that moves it and a free port; exit 1, nothing started', async () => {
    const parts = [
      ['the relay', START_ENV.relayPort],
      ['the app', START_ENV.appPort],
      ['the device lane', START_ENV.lanePort],
      ['Caddy', START_ENV.lanPort],
      ['the CA download', START_ENV.lanCaPort],
    ] as const;
    const env: Record<string, string> = {
      [START_ENV.dataDir]: dataDir,
      [START_ENV.lanHost]: '127.0.0.1',
    };
    for (const [, variable] of parts) {
      const port = await freePort();
      env[variable] = String(port);
      await hold(port);
    }
    const r = await npmStartRefused(env, ['--lan']);
    expect(r.code).toBe(1);
    const lines = r.output.split('\n').filter((l) => l.startsWith('[start]'));
    expect(lines, r.output).toHaveLength(parts.length);
    parts.forEach(([what, variable], i) => {
      const m = new RegExp(
        `^\\[start\\] port ${env[variable]} \\(${what}\\) is already in use: stop what holds it, or move it with ${variable}=(\\d+) npm start \\[port-taken\\]$`,
      ).exec(lines[i]!);
      expect(m, lines[i]).not.toBeNull();
    });
    expect(r.output).not.toMatch(/^\s+at /m); // no stack trace
    expect(r.output).not.toContain('building the app');
    expect(r.tree).toEqual([]);
  });

  it('P4: without --lan only its own three ports count; one taken is the only line', async () => {
    const env: Record<string, string> = { [START_ENV.dataDir]: dataDir };
    const [relay, lane, app] = await freePorts(3);
    env[START_ENV.relayPort] = String(relay);
    env[START_ENV.lanePort] = String(lane);
    env[START_ENV.appPort] = String(app);
    await hold(Number(env[START_ENV.appPort]));
    const r = await npmStartRefused(env);
    expect(r.code).toBe(1);
    expect(r.output.split('\n').filter((l) => l.startsWith('[start]'))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\[start\\] port ${env[START_ENV.appPort]} \\(the app\\) .* DSH_APP_PORT=\\d+ npm start \\[port-taken\\]$`,
        ),
      ),
    ]);
  });
});
