import { afterAll, afterEach, beforeAll } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { MachineMessage } from '../../protocol/index.ts';
import type { MachineOptions } from '../machine.ts';
import { startRelayProcess, type RelayProcess } from './relay-process.ts';
import type { TestPhone } from './test-phone.ts';
import { startFakePushService, type FakePushService } from '../../testkit/push-service.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';
import { makeWorld, type World } from './world.ts';

export type RelaySuiteOptions = {
  /**
   * Web Push on: a fake push service (testkit/push-service.ts) started first, and the relay given
   * a VAPID subject and that service's origin as the one push endpoint it may reach.
   */
  push?: boolean;
  /** More relay flags (e.g. a small push burst). */
  extraArgs?: string[];
};

/**
 * One real relay child process per test file (or describe block); one world per test, cleaned up
 * after it.
 */
export function relaySuite(options: RelaySuiteOptions = {}) {
  let relay: RelayProcess | undefined;
  let relayDir: { dir: string; cleanup(): void } | undefined;
  let service: FakePushService | undefined;
  const worlds: World[] = [];
  beforeAll(async () => {
    if (options.push) service = await startFakePushService();
    relayDir = makeTmpDir('relay-');
    relay = await startRelayProcess({
      dataDir: relayDir.dir,
      extraArgs: [
        ...(service
          ? [
              '--vapid-subject',
              'mailto:ops@example.com',
              '--unsafe-allow-push-origin',
              service.origin,
            ]
          : []),
        ...(options.extraArgs ?? []),
      ],
    });
  });
  afterAll(async () => {
    await relay?.stop();
    relayDir?.cleanup();
    await service?.close();
  });
  afterEach(async () => {
    await Promise.all(worlds.splice(0).map((w) => w.cleanup()));
  });
  return {
    relay: () => relay!,
    /** The fake push service; only with `push: true`. */
    service: () => service!,
    async world(overrides: Partial<MachineOptions> = {}): Promise<World> {
      const w = await makeWorld(relay!.url, overrides);
      worlds.push(w);
      await w.machine.connected();
      return w;
    },
  };
}

export const is =
  <T extends MachineMessage['type']>(type: T) =>
  (m: MachineMessage): m is Extract<MachineMessage, { type: T }> =>
    m.type === type;

export const rid = () => randomUUID();

/** Dispatches and returns the dispatch.result for this requestId. */
export async function dispatch(
  phone: TestPhone,
  fields: {
    prompt: string;
    cwd?: string;
    worktree?: boolean;
    access?: 'standard' | 'full';
    requestId?: string;
    ts?: number;
  },
) {
  const requestId = fields.requestId ?? rid();
  const from = phone.messages.length;
  phone.send({
    type: 'dispatch.request',
    requestId,
    prompt: fields.prompt,
    worktree: fields.worktree ?? false,
    ...(fields.cwd !== undefined ? { cwd: fields.cwd } : {}),
    ...(fields.access !== undefined ? { access: fields.access } : {}),
    ...(fields.ts !== undefined ? { ts: fields.ts } : {}),
  });
  return phone.waitFor(
    (m): m is Extract<MachineMessage, { type: 'dispatch.result' }> =>
      m.type === 'dispatch.result' && m.requestId === requestId,
    8000,
    from,
  );
}

export const finalOf = (phone: TestPhone, sessionId: string) =>
  phone.waitFor(
    (m): m is Extract<MachineMessage, { type: 'turn.final' }> =>
      m.type === 'turn.final' && m.sessionId === sessionId,
    8000,
  );
