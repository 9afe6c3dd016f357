import type { MachineMessage, Session } from '../protocol/index.ts';

/**
 * session.snapshot for a joining phone. One envelope holds ~16 KiB: the newest sessions go in
 * the snapshot (as many as fit), the rest follow as session.update so none is left out.
 */
export function snapshotMessages(
  newestFirst: readonly Session[],
  ts: number,
  fits: (m: MachineMessage) => boolean,
): MachineMessage[] {
  let n = newestFirst.length;
  while (
    n > 0 &&
    !fits({ v: 1, type: 'session.snapshot', ts, sessions: newestFirst.slice(0, n) })
  ) {
    n = Math.floor(n * 0.75);
  }
  return [
    { v: 1, type: 'session.snapshot', ts, sessions: newestFirst.slice(0, n) },
    ...newestFirst
      .slice(n)
      .map((session): MachineMessage => ({ v: 1, type: 'session.update', ts, session })),
  ];
}
