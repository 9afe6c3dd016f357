// startExecutor: the executor as a value (the CLI's `serve` is a thin shell around it). Starting
// takes the single-instance lock first, cleans up after a killed predecessor (process groups,
// temp files), reads the lane's capabilities, then hands over to serve().
import { mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCapabilities } from './capabilities.ts';
import { realTimers } from '../timers.ts';
import { rootProblem } from './fs/contain.ts';
import { makeTempJournal } from './fs/temp-journal.ts';
import { loadKey, loadRecord } from './keystore.ts';
import * as L from './limits.ts';
import { acquireInstanceLock } from './lock.ts';
import { silentLogger } from './log.ts';
import { detectCgroupSupport } from './proc/cgroup.ts';
import { makeGroupJournal } from './proc/group-journal.ts';
import { serve } from './serve.ts';
import { ExecutorStartError } from './start-error.ts';
import type { Executor, ExecutorOptions } from './types.ts';

export { EXECUTOR_VERSION, REVOKED_MESSAGE, SUPERSEDED_MESSAGE } from './reconnect-loop.ts';
export {
  ExecutorStartError,
  EXECUTOR_START_ERRORS,
  type ExecutorStartErrorCode,
} from './start-error.ts';
export * from './types.ts';

export const startExecutor = async (opts: ExecutorOptions): Promise<Executor> => {
  const clock = opts.clock ?? realTimers;
  const log = opts.log ?? silentLogger;
  const random = opts.random ?? Math.random;
  const emit = opts.onEvent ?? (() => {});

  const record = loadRecord(opts.keyDir);
  if (!record) {
    throw new ExecutorStartError(
      'not_enrolled',
      `no enrollment in ${opts.keyDir}; run: npm run device -- enroll …`,
    );
  }
  const loaded = loadKey(opts.keyDir);
  if (!loaded)
    throw new ExecutorStartError('not_enrolled', `no private key in ${opts.keyDir}; enroll again`);
  if ('error' in loaded) throw new ExecutorStartError('key_unusable', loaded.error);
  const { deviceId } = record;

  // R10: the lock comes first, before any network, so a second instance fails fast.
  const locked = acquireInstanceLock(opts.keyDir, deviceId);
  if (!locked.ok) throw new ExecutorStartError('locked', locked.message);
  const lock = locked.lock;
  try {
    if (locked.tookOverFrom) log('info', 'lock.taken_over', { stalePid: locked.tookOverFrom.pid });
    try {
      if (!statSync(record.workspaceRoot).isDirectory()) throw new Error();
    } catch {
      throw new ExecutorStartError(
        'workspace_missing',
        `the workspace root ${record.workspaceRoot} is not a folder`,
      );
    }
    const stateDir = join(opts.keyDir, 'state');
    const temps = makeTempJournal(join(stateDir, 'temps'));
    const groups = makeGroupJournal(join(stateDir, 'groups'));
    const swept = temps.sweep();
    const reaped = await groups.reapLeftovers(opts.killGraceMs ?? L.DEFAULT_KILL_GRACE_MS, clock);
    if (swept || reaped)
      log('info', 'start.cleanup', { sweptTempFiles: swept, killedGroups: reaped });

    const cgroups = opts.cgroups === false ? null : detectCgroupSupport();
    log('info', 'start.cgroups', {
      state: cgroups === null ? 'off' : cgroups.ok ? 'on' : 'unavailable',
    });
    const caps = await readCapabilities(record.server, opts.fetch ?? fetch);
    const tempRoot = opts.tempRoot ?? join(tmpdir(), `dsh-device-${deviceId}`);
    // H7a: nothing under /proc or /dev is ever served, so such a root would refuse everything.
    const rootRefused = rootProblem(record.workspaceRoot) ?? rootProblem(tempRoot);
    if (rootRefused) throw new ExecutorStartError('workspace_refused', rootRefused);
    mkdirSync(tempRoot, { recursive: true, mode: 0o700 });

    return serve({
      opts,
      clock,
      log,
      random,
      emit,
      deviceId,
      key: loaded.key,
      workspaceRoot: record.workspaceRoot,
      wsUrl: caps.wsUrl,
      tempRoot,
      temps,
      groups,
      cgroupBase: cgroups?.ok ? cgroups.base : null,
      releaseLock: () => lock.release(),
    });
  } catch (e) {
    lock.release();
    throw e;
  }
};
