// A relay fixture with Web Push on, sending to a fresh local fake push service (the test-only
// unsafe origin, D4), both torn down after each test.
import { afterEach } from 'vitest';
import type { RelayOptions } from '../server.ts';
import { startFakePushService, type FakePushService } from '../../testkit/push-service.ts';
import { startFixture, type Fixture } from './relay-fixture.ts';

export const PUSH_SUBJECT = 'mailto:relay-test@example.com';
export type PushFixture = { f: Fixture; svc: FakePushService };

/** Registers the teardown; returns `setup(options)` for each test (options over `defaults`). */
export function pushFixtures(
  defaults: RelayOptions = {},
): (o?: RelayOptions) => Promise<PushFixture> {
  let fx: Fixture | undefined;
  let fake: FakePushService | undefined;
  afterEach(async () => {
    await fake?.close();
    await fx?.stop();
    fx = fake = undefined;
  });
  return async (o = {}) => {
    const svc = (fake = await startFakePushService());
    const f = (fx = await startFixture({
      vapidSubject: PUSH_SUBJECT,
      unsafeAllowPushOrigins: [svc.origin],
      ...defaults,
      ...o,
    }));
    return { f, svc };
  };
}
