import type { MachineMessage } from '../../protocol/index.ts';
import { capRecord } from './bounded.ts';

// H10: a relay can replay an old sealed frame (it cannot forge one). A machine→phone frame whose
// `ts` is far older than the newest frame seen from that machine for the same thing (the status,
// the snapshot, one session, one card, one turn summary) is ignored. Frames are compared only
// with frames of the same machine, so the phone's clock and the D11 offset cancel out; what is
// left is the machine's own clock being stepped back (NTP corrects it, the D11 offset the phone
// measures jumps by the same amount), which the allowance absorbs.
export const STALE_FRAME_ALLOWANCE_MS = 60_000;
/** Newest-ts entries kept per machine (least recently seen dropped first). */
export const MAX_FRAME_KEYS = 256;

/** Newest machine `ts` seen per key ("status", "snapshot", "s:<session>", "a:<id>"…). */
export type FrameClock = Record<string, number>;

export const sessionKey = (id: string) => `s:${id}`;
export const approvalKey = (id: string) => `a:${id}`;
export const questionKey = (id: string) => `q:${id}`;

/** The key a frame is judged by, or null for replies that merge idempotently (transcript…). */
export function frameKey(m: MachineMessage): string | null {
  switch (m.type) {
    case 'machine.status':
      return 'status';
    case 'session.snapshot':
      return 'snapshot';
    case 'session.update':
      return sessionKey(m.session.sessionId);
    case 'approval.request':
    case 'approval.closed':
      return approvalKey(m.approvalId);
    case 'question.request':
    case 'question.closed':
      return questionKey(m.questionId);
    case 'turn.final':
      return `f:${m.sessionId}`;
    default:
      return null;
  }
}

export function isStaleFrame(clock: FrameClock, m: MachineMessage): boolean {
  const key = frameKey(m);
  const newest = key === null ? undefined : clock[key];
  return newest !== undefined && m.ts < newest - STALE_FRAME_ALLOWANCE_MS;
}

/** Records the frame's ts (a snapshot also dates every session it lists). */
export function observeFrame(clock: FrameClock, m: MachineMessage): FrameClock {
  const key = frameKey(m);
  if (key === null) return clock;
  const next = { ...clock };
  const bump = (k: string) => {
    const seen = next[k];
    delete next[k];
    next[k] = seen === undefined ? m.ts : Math.max(seen, m.ts);
  };
  bump(key);
  if (m.type === 'session.snapshot') for (const s of m.sessions) bump(sessionKey(s.sessionId));
  return capRecord(next, MAX_FRAME_KEYS);
}
