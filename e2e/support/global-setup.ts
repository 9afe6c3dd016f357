import { buildBundles } from '../../testkit/bundles.ts';

/** Playwright's global setup: the product's child-process entries, bundled once per run. */
export default async function globalSetup(): Promise<void> {
  await buildBundles();
}
