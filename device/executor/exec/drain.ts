// H7b: how a command's output is finished once its processes are dead. The pipes close as soon
// as what they still buffer is read — unless a process the executor could not find holds them.
import type { Readable } from 'node:stream';
import type { TimerHandle, Timers } from '../../timers.ts';
import { OUTPUT_DRAIN_AFTER_KILL_MS } from '../limits.ts';
import type { SpawnedGroup } from '../proc/group.ts';
import type { Flow } from './flow.ts';

const closed = (s: Readable): Promise<void> =>
  s.closed || s.destroyed ? Promise.resolve() : new Promise((r) => s.once('close', () => r()));

export const bothClosed = (g: SpawnedGroup): Promise<unknown> =>
  Promise.all([closed(g.stdout), closed(g.stderr)]);

/** Which output streams were cut because something the executor could not find held them. */
export type Cut = { readonly stdout: boolean; readonly stderr: boolean };

/**
 * H7b: once every process the executor can find is gone, the rest of the output is what the
 * pipes still buffer, and they close as soon as it is read. If they stay open for
 * OUTPUT_DRAIN_AFTER_KILL_MS while being read (time paused by flow control does not count),
 * a process the executor could not find holds them: they are cut, and the answer says so,
 * instead of waiting for that process to end.
 */
export const drainOutput = async (g: SpawnedGroup, flow: Flow, clock: Timers): Promise<Cut> => {
  const both = bothClosed(g);
  let done = false;
  void both.then(() => (done = true));
  for (;;) {
    let timer: TimerHandle | undefined;
    const over = new Promise<'over'>((r) => {
      timer = clock.setTimeout(() => r('over'), OUTPUT_DRAIN_AFTER_KILL_MS);
    });
    const first = await Promise.race([both.then(() => 'closed' as const), over]);
    if (timer) clock.clearTimeout(timer);
    if (first === 'closed' || done) return { stdout: false, stderr: false };
    if (!flow.blocked()) break;
    await flow.wait();
  }
  const cut = { stdout: !g.stdout.closed, stderr: !g.stderr.closed };
  g.stdout.destroy();
  g.stderr.destroy();
  return cut;
};
