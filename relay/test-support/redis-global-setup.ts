// vitest globalSetup of the `[redis]` project (vitest.config.ts): one real redis-server for the
// whole run, so the single-process rule tests also run against a relay started with --redis
// (relay-fixture.ts reads the URL). Stopped, with its process group, when the run ends.
import type { TestProject } from 'vitest/node';
import { startRedis } from './redis-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    relayTestRedis: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await startRedis();
  project.provide('relayTestRedis', redis.url);
  return () => redis.stop();
}
