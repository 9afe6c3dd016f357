import { statSync } from 'node:fs';
import type { Core } from '../core.ts';
import { isDeskSession, type DeskRead, type SessionRecord } from '../sessions/sessions.ts';
import { makeTranscriptReader, READ_MAX_BYTES } from './claude-transcript.ts';

// E10 (desk sessions): a desk session's transcript, read from Claude Code's own session file into
// the session's transcript. Where reading stopped is kept with the session (the `desk_read`
// column), written in the same transaction as the lines read up to there: after a restart,
// planned or a crash, reading resumes right after the last line kept — what Claude wrote while no
// machine ran is shown, and nothing twice.

/**
 * At start, what Claude wrote while no machine ran is read for every desk session with a kept
 * position, newest first, at most this much in all (the rest comes with each session's next event).
 */
export const CATCH_UP_MAX_BYTES = 8 * 1024 * 1024;

type DeskCore = Pick<Core, 'sessions' | 'timers' | 'scheduler'>;

export type DeskTranscript = {
  /** Reads what is new (at most `maxBytes`) into the session, with its position. */
  read(maxBytes?: number): void;
};

/**
 * The session's file read from where its kept position says; a session known from before
 * positions were kept, or whose file is another, from `fallback`.
 */
export function openDeskTranscript(
  core: DeskCore,
  s: SessionRecord,
  file: string,
  fallback: 'start' | 'end',
): DeskTranscript {
  const kept = s.deskRead;
  const reader = makeTranscriptReader(file, kept?.file === file ? kept : fallback);
  return {
    read(maxBytes = READ_MAX_BYTES) {
      const lines = reader.read(maxBytes);
      const at = reader.position();
      if (at === null) return;
      const deskRead: DeskRead = { file, ...at };
      if (lines.length === 0 && JSON.stringify(deskRead) === JSON.stringify(s.deskRead)) return;
      const now = core.timers.now();
      if (lines.length > 0) s.lastActivity = now;
      // Kept together or not at all; a failed write keeps the old position (the lines wait in
      // memory and are read again after a restart: at worst shown twice, never lost).
      const saved = s.transcript.appendWith(lines, now, () =>
        core.sessions.saveInside({ ...s, deskRead }),
      );
      if (saved) s.deskRead = deskRead;
      if (lines.length > 0) core.scheduler.stateChanged(s.sessionId);
    },
  };
}

/** At start: reads what each desk session's file gained while no machine ran (bounded in all). */
export function catchUpDeskTranscripts(core: DeskCore): void {
  let budget = CATCH_UP_MAX_BYTES;
  for (const s of core.sessions.list()) {
    const kept = s.deskRead;
    if (budget <= 0) return;
    if (!isDeskSession(s) || kept === undefined) continue;
    let size: number;
    try {
      size = statSync(kept.file).size;
    } catch {
      continue;
    }
    if (size === kept.offset) continue;
    const maxBytes = Math.min(READ_MAX_BYTES, budget);
    budget -= maxBytes;
    openDeskTranscript(core, s, kept.file, 'end').read(maxBytes);
  }
}
