import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { liveGroupMembers } from './start/children.ts';
import { START_ENV } from './start/config.ts';
import { freePorts } from '../testkit/ports.ts';
import { alive, npmStart } from './test-support/npm-start.ts';

// `npm start` as a user runs it — a real npm process in its own group, on ports of
// the test's own, in a fresh data folder — answers on every part, and Ctrl-C (SIGINT to the
// group) leaves nothing running. A second start reuses the state.

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dsh-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm start: the whole demo', () => {
  it('Q1: starts relay, machine with the device lane, an enrolled executor and the app; each answers; Ctrl-C stops every process; a second start reuses .data', async () => {
    const [relayPort, appPort, lanePort] = await freePorts(3);
    const env = {
      [START_ENV.dataDir]: dataDir,
      [START_ENV.relayPort]: String(relayPort),
      [START_ENV.appPort]: String(appPort),
      [START_ENV.lanePort]: String(lanePort),
    };
    const first = await npmStart(env);
    try {
      const health = await fetch(`http://127.0.0.1:${relayPort}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ ok: true });
      const app = await fetch(`http://127.0.0.1:${appPort}/`);
      expect(app.status).toBe(200);
      expect(await app.text()).toMatch(/<script[^>]+type="module"/);
      const code = readFileSync(path.join(dataDir, 'machine/pairing-code.txt'), 'utf8').trim();
      expect(first.output()).toContain(`http://127.0.0.1:${appPort}/#pair=${code}`);
      expect(first.output()).toContain('▄'); // the pairing QR
      expect(first.output()).toMatch(/\[start\] device dev_\S+ enrolled/);
      // U5: quiet by default; H6: the printed enrollment banner is the machine's, not shown here.
      expect(first.output()).not.toMatch(/relay-connected|device-online|DSH_DEVICE_TOKEN=/);
      const caps = await fetch(`http://127.0.0.1:${lanePort}/v1/capabilities`);
      expect(await caps.json()).toMatchObject({ deviceExecutor: { enabled: true } });
      expect(existsSync(path.join(dataDir, 'workspace/.git'))).toBe(true);
      expect(existsSync(path.join(dataDir, 'device-key/device.json'))).toBe(true);
    } finally {
      const { code, tree, groups } = await first.interrupt();
      expect(code).toBe(0);
      // npm, the start script, and relay, app, machine, device each in a group of its own
      expect(tree.length).toBeGreaterThanOrEqual(6);
      expect(groups.length).toBeGreaterThanOrEqual(5);
      expect(tree.filter(alive)).toEqual([]);
      for (const g of groups) expect(liveGroupMembers(g)).toEqual([]);
    }
    expect(first.output()).toContain('everything stopped');

    const second = await npmStart(env);
    const { code, tree } = await second.interrupt();
    expect(code).toBe(0);
    expect(tree.filter(alive)).toEqual([]);
    expect(second.output()).toMatch(/device dev_\S+ already enrolled/);
    expect(second.output()).not.toContain('(created, a git repository)');
    expect(second.output()).not.toContain('building the app');
  }, 300_000);
});
