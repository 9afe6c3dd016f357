// Starts a relay on 127.0.0.1:0 in a fresh temporary data dir, with a manual clock and a log
// capture, and tears both down.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { startRelay, type RelayOptions, type RunningRelay } from '../index.ts';
import { makeLogCapture, type LogCapture } from './log-capture.ts';
import { makeManualTimers, type ManualTimers } from '../../testkit/manual-clock.ts';
import { connectClient, type TestClient } from './ws-client.ts';

export type Fixture = {
  relay: RunningRelay;
  timers: ManualTimers;
  logs: LogCapture;
  dataDir: string;
  client(opts?: Parameters<typeof connectClient>[1]): Promise<TestClient>;
  /** Closes clients, the relay and removes the data dir. */
  stop(): Promise<void>;
};

const redisUrl =
  (inject('relayTestRedis') as string | undefined) ?? process.env.RELAY_TEST_REDIS ?? '';

export async function startFixture(options: RelayOptions = {}): Promise<Fixture> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'relay-test-'));
  const timers = makeManualTimers();
  const logs = makeLogCapture();
  const relay = await startRelay({
    host: '127.0.0.1',
    port: 0,
    logLevel: 'debug',
    timers,
    logDestination: logs,
    // The `[redis]` test project (or RELAY_TEST_REDIS=redis://… by hand): the same rule tests
    // against a replica sharing that Redis.
    // Each data dir keeps its own subscription keys, so one test's expiry sweep (its clock moved
    // by days) never deletes another's entries in the shared Redis; a restart in the same dir
    // finds its entries again.
    ...(redisUrl
      ? { redis: redisUrl, redisStorePrefix: `relay:t:${path.basename(dataDir)}:` }
      : {}),
    ...options,
    dataDir,
  });
  const clients: TestClient[] = [];
  return {
    relay,
    timers,
    logs,
    dataDir,
    async client(opts) {
      const c = await connectClient(relay.url, opts);
      clients.push(c);
      return c;
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close()));
      await relay.close();
      if (options.dataDir === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let n = 0;
/** A fresh valid room id (22 chars like a derived one). */
export const newRoom = (): string =>
  `room${String(++n).padStart(4, '0')}${Math.random().toString(36).slice(2, 12).padEnd(10, 'x')}xxxx`.slice(
    0,
    22,
  );
