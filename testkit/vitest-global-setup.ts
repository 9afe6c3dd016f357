// vitest globalSetup of every Node project (vitest.config.ts): the bundles the tests start as
// child processes (bundles.ts), built once per run. Each project loads this file on its own, so
// the build is shared through the main process's global object.
import { buildBundles } from './bundles.ts';

const KEY = Symbol.for('dsh.testkit.bundles');
type WithBuild = { [KEY]?: Promise<void> };

export default async function setup(): Promise<void> {
  const g = globalThis as WithBuild;
  g[KEY] ??= buildBundles();
  await g[KEY];
}
