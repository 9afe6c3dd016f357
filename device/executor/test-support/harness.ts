// An enrolled executor against the real lane (device/lane) on 127.0.0.1 port 0: the lane
// fixture, a real enrollment over HTTP, and startExecutor in-process through the executor's
// public face (index.ts), as any host would. Logs are captured so tests can prove what never
// reaches them.
import { join } from 'node:path';
import { ALICE, startTestLane, type TestLane } from '../../test-support/lane-fixture.ts';
import type { DeviceLaneOptions } from '../../lane/index.ts';
import {
  enrollDevice,
  makeJsonLogger,
  startExecutor,
  type Executor,
  type ExecutorEvent,
  type ExecutorOptions,
} from '../index.ts';
import { startFaultProxy } from './fault-proxy.ts';
import { makeTmpDirs } from '../../../testkit/tmp.ts';

export type Harness = Awaited<ReturnType<typeof makeHarness>>;

export const makeHarness = async (laneOptions: DeviceLaneOptions = {}) => {
  const tmp = makeTmpDirs();
  const t: TestLane = await startTestLane(laneOptions);
  const workspace = tmp.make('dsh-ws-');
  const keyDir = join(tmp.make('dsh-keys-'), 'keys');
  const tempRoot = tmp.make('dsh-tr-');
  const logs: string[] = [];
  const events: ExecutorEvent[] = [];
  const waiters: Array<{
    pred: (e: ExecutorEvent) => boolean;
    resolve: (e: ExecutorEvent) => void;
  }> = [];
  const executors: Executor[] = [];

  // Everything goes through the fault proxy (it passes all frames until a test sets a rule).
  const proxy = await startFaultProxy({ httpUrl: t.lane.url, wsUrl: t.lane.wsUrl });
  const { token } = t.lane.issueEnrollmentToken('alice');
  const enrolled = await enrollDevice({
    server: proxy.url,
    token,
    userToken: ALICE,
    workspaceRoot: workspace,
    keyDir,
  });
  if (!enrolled.ok) throw new Error(`enroll failed: ${enrolled.message}`);
  const deviceId = enrolled.deviceId;

  const onEvent = (e: ExecutorEvent) => {
    events.push(e);
    for (const w of [...waiters]) {
      if (w.pred(e)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(e);
      }
    }
  };

  /** The first executor event (past or future) matching pred. */
  const event = <E extends ExecutorEvent>(
    pred: (e: ExecutorEvent) => e is E,
    since = 0,
  ): Promise<E> => {
    const seen = events.slice(since).find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) =>
      waiters.push({ pred, resolve: resolve as (e: ExecutorEvent) => void }),
    );
  };

  const start = async (over: Partial<ExecutorOptions> = {}) => {
    const ex = await startExecutor({
      keyDir,
      tempRoot,
      shell: '/bin/sh',
      reconnectMinMs: 20,
      reconnectMaxMs: 200,
      killGraceMs: 500,
      log: makeJsonLogger((l) => logs.push(l), 'debug'),
      onEvent,
      ...over,
    });
    executors.push(ex);
    return ex;
  };

  /** Starts and waits until the lane has the generation acked. */
  const online = async (over: Partial<ExecutorOptions> = {}) => {
    const since = events.length;
    const ex = await start(over);
    const active = await event(
      (e): e is Extract<ExecutorEvent, { type: 'active' }> => e.type === 'active',
      since,
    );
    await t.audited(
      (e) => e.event === 'generation_acked' && e.deviceId === deviceId && e.gen === active.gen,
    );
    return ex;
  };

  const close = async () => {
    for (const ex of executors) {
      const stopped = ex.stop('shutdown');
      await Promise.race([stopped, new Promise((r) => setTimeout(r, 3000))]);
    }
    await proxy.close();
    await t.stop();
    tmp.cleanup();
  };

  return {
    t,
    proxy,
    lane: t.lane,
    workspace,
    keyDir,
    tempRoot,
    deviceId,
    logs,
    events,
    event,
    start,
    online,
    close,
    tmp,
  };
};

/** Collects a dispatch's output items and outcome. */
export const collect = async (h: {
  output: AsyncIterable<import('../../lane/index.ts').StreamItem>;
  outcome: Promise<unknown>;
}) => {
  const items: import('../../lane/index.ts').StreamItem[] = [];
  for await (const i of h.output) items.push(i);
  return { items, outcome: await h.outcome };
};

export const stdoutOf = (items: import('../../lane/index.ts').StreamItem[]) =>
  Buffer.concat(items.flatMap((i) => (i.kind === 'stdout' ? [i.data] : []))).toString();

export const stdoutBytes = (items: import('../../lane/index.ts').StreamItem[]) =>
  Buffer.concat(items.flatMap((i) => (i.kind === 'stdout' ? [i.data] : [])));
