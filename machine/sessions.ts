import { randomUUID } from 'node:crypto';
import {
  clampText,
  MAX_TITLE_CHARS,
  type AccessLevel,
  type Session,
  type SessionState,
} from '../protocol/index.ts';
import { EMPTY_TRAIL, trailForWire, type StepTrail } from './steps.ts';
import { makeTranscriptStore, type TranscriptStore } from './transcript.ts';

// The sessions this machine holds. `live` = the machine still holds it (session.message lands);
// `access:'full'` is a permanent audit mark set at dispatch and never cleared.

export type SessionRecord = {
  readonly sessionId: string;
  title: string;
  readonly cwd: string;
  state: SessionState;
  lastActivity: number;
  readonly dispatched: boolean;
  readonly access: AccessLevel;
  live: boolean;
  activity: string | undefined;
  trail: StepTrail;
  readonly transcript: TranscriptStore;
  /** Aborts the running turn's tools. */
  turn: AbortController | null;
  /** Steering messages that arrived while a turn ran; each starts the next turn. */
  readonly queued: string[];
  readonly worktree?: { path: string; branch: string };
};

export const titleFrom = (prompt: string): string =>
  clampText(prompt.trim().replace(/\s+/g, ' '), { chars: MAX_TITLE_CHARS }).text;

export function toWireSession(s: SessionRecord): Session {
  const wire: Session = {
    sessionId: s.sessionId,
    title: s.title,
    cwd: s.cwd,
    state: s.state,
    lastActivity: s.lastActivity,
    dispatched: s.dispatched,
    access: s.access,
    live: s.live,
  };
  if (s.activity !== undefined) wire.activity = s.activity;
  if (s.trail.entries.length > 0) Object.assign(wire, trailForWire(s.trail));
  return wire;
}

export type SessionStore = ReturnType<typeof makeSessionStore>;

export function makeSessionStore() {
  const sessions = new Map<string, SessionRecord>();
  return {
    create(fields: {
      prompt: string;
      cwd: string;
      dispatched: boolean;
      access: AccessLevel;
      now: number;
      worktree?: { path: string; branch: string };
    }): SessionRecord {
      const record: SessionRecord = {
        sessionId: randomUUID(),
        title: titleFrom(fields.prompt),
        cwd: fields.cwd,
        state: 'idle',
        lastActivity: fields.now,
        dispatched: fields.dispatched,
        access: fields.access,
        live: true,
        activity: undefined,
        trail: EMPTY_TRAIL,
        transcript: makeTranscriptStore(),
        turn: null,
        queued: [],
        ...(fields.worktree !== undefined ? { worktree: fields.worktree } : {}),
      };
      sessions.set(record.sessionId, record);
      return record;
    },
    get: (id: string) => sessions.get(id),
    /** Newest activity first. */
    list: (): SessionRecord[] =>
      [...sessions.values()].sort((a, b) => b.lastActivity - a.lastActivity),
  };
}
