import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startDeviceLane,
  type AuditEvent,
  type DeviceLane,
  type DeviceLaneOptions,
} from '../lane/index.ts';
import { connectTestDevice, enrollTestDevice, type DeviceIdentity } from './test-device.ts';

export const ALICE = 'alice-credential-0001';
export const BOB = 'bob-credential-0002';

/** A lane on 127.0.0.1 port 0 with a temp data dir, two users, and an audit waiter. */
export const startTestLane = async (over: DeviceLaneOptions = {}) => {
  const dataDir = over.dataDir ?? mkdtempSync(join(tmpdir(), 'device-lane-'));
  const events: AuditEvent[] = [];
  const waiters: { pred: (e: AuditEvent) => boolean; resolve: (e: AuditEvent) => void }[] = [];
  const lane: DeviceLane = await startDeviceLane({
    users: { [ALICE]: 'alice', [BOB]: 'bob' },
    ...over,
    dataDir,
    onAudit: (e) => {
      events.push(e);
      for (const w of [...waiters]) {
        if (w.pred(e)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(e);
        }
      }
      over.onAudit?.(e);
    },
  });
  /** Resolves with the first audit event (past or future) matching `pred`. */
  const audited = (pred: (e: AuditEvent) => boolean, waitMs = 5000): Promise<AuditEvent> => {
    const seen = events.find(pred);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('audit event did not happen')), waitMs);
      waiters.push({
        pred,
        resolve: (e) => {
          clearTimeout(t);
          resolve(e);
        },
      });
    });
  };
  const enroll = (bearer = ALICE) => enrollTestDevice(lane.url, bearer);
  const connect = (id: DeviceIdentity | undefined, opts: { epoch?: string } = {}) =>
    connectTestDevice(lane.wsUrl, id, opts);
  /** Enrolled, connected, hello'd and generation-acked. */
  const online = async (opts: { epoch?: string; supports?: string[] } = {}) => {
    const id = await enroll();
    const dev = await connect(id, opts);
    const ack = await dev.handshake(opts.supports === undefined ? {} : { supports: opts.supports });
    await audited(
      (e) => e.event === 'generation_acked' && e.deviceId === id.deviceId && e.gen === ack.gen,
    );
    return { id, dev, ack };
  };
  const stop = async () => {
    await lane.close();
    if (over.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  };
  return { lane, dataDir, events, audited, enroll, connect, online, stop };
};
export type TestLane = Awaited<ReturnType<typeof startTestLane>>;

type Dev = Awaited<ReturnType<typeof connectTestDevice>>;

/**
 * Ordering barrier: the lane handles a socket's frames in order and writes its answers in order,
 * so once the answer to a later probe has arrived, any answer to an earlier frame would have
 * arrived before it. Dispatches a harmless `exists` and waits for its instruction frame.
 */
export const barrier = async (t: TestLane, dev: Dev, deviceId: string) => {
  const probe = t.lane.dispatch(deviceId, { kind: 'exists', args: { path: '/probe' } });
  await dev.next('instruction', (f) => f.instructionId === probe.instructionId);
  return probe;
};

/** Collects an instruction's host-side output until it settles. */
export const collect = async (h: {
  output: AsyncIterable<{ kind: string; data?: Buffer; exitCode?: number }>;
}) => {
  const items: { kind: string; data?: Buffer; exitCode?: number }[] = [];
  for await (const i of h.output) items.push(i);
  return items;
};
