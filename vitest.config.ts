import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import solid from 'vite-plugin-solid';

// Most test files spend their time waiting on child processes and sockets, so two files run side
// by side even on 2 cores (Vitest's default there is one: cores − 1). The files that measure a
// latency under a known load run afterwards, alone (`sequence.groupOrder` 1, one worker).
const WORKERS = Math.max(2, availableParallelism());
const ALONE = ['relay/push-flood.test.ts'];
const shared = { testTimeout: 20_000, hookTimeout: 20_000, maxWorkers: WORKERS };

// The projects: the Solid plugin adds the `browser` resolve condition, which would hand Node-side
// tests the browser build of packages such as `ws`; so only the app's tests get the plugin.
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [solid()],
        test: { ...shared, name: 'app', include: ['src/**/*.test.{ts,tsx}'], environment: 'node' },
      },
      {
        test: {
          ...shared,
          name: 'node',
          include: ['{protocol,page-worker,sw,relay,machine,device,scripts}/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ALONE],
          environment: 'node',
        },
      },
      {
        // H1's flood test asserts /healthz p99 < 100 ms: it needs the cores to itself.
        test: {
          ...shared,
          name: 'alone',
          include: ALONE,
          environment: 'node',
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // The single-process rule tests once more, against a relay started with --redis
        // (RS1): one redis-server for the project; failures are reported under [redis].
        // Not fuzz.test.ts: its hostile frames are refused before the room layer, and it would
        // add ~8 s of CPU to every run for no Redis path it does not already take here.
        test: {
          ...shared,
          name: '[redis]',
          include: ['relay/{rules,limits,push,logs,http,subscriptions,push-limits}.test.ts'],
          environment: 'node',
          globalSetup: ['relay/test-support/redis-global-setup.ts'],
        },
      },
    ],
  },
});
