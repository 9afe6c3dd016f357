import {
  MAX_OPEN_CARDS,
  type MachineMessage,
  type OpenCards,
  type Session,
} from '../../protocol/index.ts';

/**
 * session.snapshot for a joining phone. One envelope holds ~16 KiB: the newest sessions go in
 * the snapshot (as many as fit), the rest follow as session.update so none is left out.
 *
 * E1: `open` names every approval and question still pending, and the phone closes the cards it
 * does not name, so it must never be cut short: it goes whole or not at all. When it cannot fit
 * (more ids than the protocol's list limit, or more than the envelope holds beside no session),
 * it is left out and the phone falls back to the E1 rule for machines without the field.
 */
export function snapshotMessages(
  newestFirst: readonly Session[],
  open: OpenCards,
  ts: number,
  fits: (m: MachineMessage) => boolean,
): MachineMessage[] {
  const build = (n: number, withOpen: boolean): MachineMessage => ({
    v: 1,
    type: 'session.snapshot',
    ts,
    sessions: newestFirst.slice(0, n),
    ...(withOpen ? { open } : {}),
  });
  const withOpen =
    open.approvals.length <= MAX_OPEN_CARDS &&
    open.questions.length <= MAX_OPEN_CARDS &&
    fits(build(0, true));
  let n = newestFirst.length;
  while (n > 0 && !fits(build(n, withOpen))) n = Math.floor(n * 0.75);
  return [
    build(n, withOpen),
    ...newestFirst
      .slice(n)
      .map((session): MachineMessage => ({ v: 1, type: 'session.update', ts, session })),
  ];
}
