import { randomUUID } from 'node:crypto';
import {
  ACCESS_LEVELS,
  isMember,
  MAX_TITLE_CHARS,
  SESSION_END_REASONS,
  SESSION_STATES,
  type AccessLevel,
  type AgentUsage,
  type Session,
  type SessionEndReason,
  type SessionState,
} from '../../protocol/index.ts';
import { EMPTY_TRAIL, trailForWire, type StepTrail } from './steps.ts';
import { statement } from '../../device/lane/sqlite.ts';
import type { AgentSession } from '../agent/agent.ts';
import { MOCK_AGENT } from '../agent/mock/provider.ts';
import type { Store } from './store.ts';
import type { TranscriptStore, Transcripts } from './transcript.ts';

// The sessions this machine holds, kept in the store so they outlive the process (U5): after a
// restart each one is listed again with its last state, not live (nothing holds it any more, so
// session.message gets no-remote-followup) unless its agent can resume it (E10), and its
// transcript reads as before. E11: a session that can take no more messages says why (`ended`).
// `access:'full'` is a permanent audit mark set at dispatch and never cleared.

export const MAX_KEPT_SESSIONS = 100;
export const SESSION_RETENTION_MS = 30 * 24 * 60 * 60_000;
/** Said in the transcript of a session whose turn the machine's stop cut short. */
export const INTERRUPTED_NOTE =
  'The machine stopped before this turn finished; nothing more of it ran.';

export type SessionRecord = {
  readonly sessionId: string;
  title: string;
  readonly cwd: string;
  /** The allowed root the session's folder was checked against (absent: a local session). */
  readonly root?: string;
  state: SessionState;
  lastActivity: number;
  readonly createdAt: number;
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
  /** E10: the agent running it, what it reported, and its own session id (kept for resume). */
  readonly agent: string;
  model?: string;
  usage?: AgentUsage;
  nativeId?: string;
  /** The agent's open session while the machine holds one (none after a restart until a reply). */
  agentSession: AgentSession | null;
  /** E11: set once the session can take no more messages (then `live` is false), and why. */
  ended?: SessionEndReason;
  /** E10: a desk session's read position in its own transcript file (kept across restarts). */
  deskRead?: DeskRead;
};

/** E10: the file a desk session's transcript is read from, and where reading stopped. */
export type DeskRead = {
  file: string;
  offset: number;
  /** Tool calls (id, name) whose results are still to come: a result after a restart is named. */
  tools: Array<[string, string]>;
};

const MAX_DESK_TOOLS = 64;

/** Parse at the edge: a stored position that is not one is no position (read from the end). */
export function parseDeskRead(json: string | null): DeskRead | undefined {
  if (json === null) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.file !== 'string' || !Number.isSafeInteger(o.offset) || (o.offset as number) < 0)
    return undefined;
  const tools = Array.isArray(o.tools)
    ? o.tools
        .filter(
          (t): t is [string, string] =>
            Array.isArray(t) &&
            t.length === 2 &&
            typeof t[0] === 'string' &&
            typeof t[1] === 'string',
        )
        .slice(-MAX_DESK_TOOLS)
    : [];
  return { file: o.file, offset: o.offset as number, tools };
}

/** E10: a session an agent's hooks told the machine of: not dispatched, the agent's own id kept. */
export const isDeskSession = (s: Pick<SessionRecord, 'dispatched' | 'nativeId'>): boolean =>
  !s.dispatched && s.nativeId !== undefined;

/**
 * SC4: a session's title is its prompt on one line; a longer one ends in "…" after the last whole
 * word that fits (never cut mid-word), or mid-text only when it has no space to cut at (Chinese).
 */
export function titleFrom(prompt: string): string {
  const flat = prompt.trim().replace(/\s+/g, ' ');
  const chars = Array.from(flat);
  if (chars.length <= MAX_TITLE_CHARS) return flat;
  const head = chars.slice(0, MAX_TITLE_CHARS - 1).join('');
  const space = head.lastIndexOf(' ');
  const cut = space >= head.length / 2 ? head.slice(0, space) : head;
  return `${cut.trimEnd()}…`;
}

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
  wire.agent = s.agent;
  if (s.model !== undefined) wire.model = s.model;
  if (s.usage !== undefined) wire.usage = s.usage;
  if (s.ended !== undefined) wire.ended = { reason: s.ended };
  return wire;
}

type Row = {
  session_id: string;
  title: string;
  cwd: string;
  root: string | null;
  state: string;
  last_activity: number;
  created_at: number;
  dispatched: number;
  access: string;
  steps: string;
  worktree_path: string | null;
  worktree_branch: string | null;
  agent: string | null;
  model: string | null;
  usage: string | null;
  native_id: string | null;
  ended: string | null;
  desk_read: string | null;
};

function parseUsage(json: string | null): AgentUsage | undefined {
  if (json === null) return undefined;
  try {
    const u = JSON.parse(json) as AgentUsage;
    return typeof u.inputTokens === 'number' && typeof u.outputTokens === 'number' ? u : undefined;
  } catch {
    return undefined;
  }
}

function parseTrail(json: string): StepTrail {
  try {
    const t = JSON.parse(json) as StepTrail;
    return Array.isArray(t.entries) ? t : EMPTY_TRAIL;
  } catch {
    return EMPTY_TRAIL;
  }
}

export type SessionStore = ReturnType<typeof makeSessionStore>;

export function makeSessionStore(o: {
  store: Store;
  transcripts: Transcripts;
  now: () => number;
  maxSessions?: number;
  retentionMs?: number;
}) {
  const db = o.store.db;
  const maxSessions = o.maxSessions ?? MAX_KEPT_SESSIONS;
  const retentionMs = o.retentionMs ?? SESSION_RETENTION_MS;
  const q = {
    upsert: db.prepare(
      `INSERT INTO sessions (session_id, title, cwd, root, state, last_activity, created_at,
         dispatched, access, steps, worktree_path, worktree_branch, agent, model, usage, native_id,
         ended, desk_read)
       VALUES (@session_id, @title, @cwd, @root, @state, @last_activity, @created_at,
         @dispatched, @access, @steps, @worktree_path, @worktree_branch, @agent, @model, @usage,
         @native_id, @ended, @desk_read)
       ON CONFLICT (session_id) DO UPDATE SET title = excluded.title, state = excluded.state,
         last_activity = excluded.last_activity, steps = excluded.steps, model = excluded.model,
         usage = excluded.usage, native_id = excluded.native_id, ended = excluded.ended,
         desk_read = excluded.desk_read`,
    ),
    all: statement<[], Row>(db, 'SELECT * FROM sessions'),
    remove: db.prepare('DELETE FROM sessions WHERE session_id = ?'),
    removeTranscript: db.prepare('DELETE FROM transcript WHERE session_id = ?'),
  };
  const sessions = new Map<string, SessionRecord>();

  /** The save's statement alone, for a write that holds more (it must run inside one). */
  const saveInside = (s: SessionRecord): void => {
    q.upsert.run({
      session_id: s.sessionId,
      title: s.title,
      cwd: s.cwd,
      root: s.root ?? null,
      state: s.state,
      last_activity: s.lastActivity,
      created_at: s.createdAt,
      dispatched: s.dispatched ? 1 : 0,
      access: s.access,
      steps: JSON.stringify(s.trail),
      worktree_path: s.worktree?.path ?? null,
      worktree_branch: s.worktree?.branch ?? null,
      agent: s.agent,
      model: s.model ?? null,
      usage: s.usage === undefined ? null : JSON.stringify(s.usage),
      native_id: s.nativeId ?? null,
      // E11: machine-restarted is decided again at every start, never stored.
      ended: s.ended === 'machine-restarted' ? null : (s.ended ?? null),
      desk_read: s.deskRead === undefined ? null : JSON.stringify(s.deskRead),
    });
  };
  const save = (s: SessionRecord): boolean =>
    o.store.write(`session ${s.sessionId.slice(0, 8)}`, () => saveInside(s));

  // Restore: nothing is live after a restart. A turn the stop cut short ends as an error, said
  // in its transcript, so no card or chip shows a session as running when nothing runs it.
  for (const r of q.all.all()) {
    const record: SessionRecord = {
      sessionId: r.session_id,
      title: r.title,
      cwd: r.cwd,
      ...(r.root !== null ? { root: r.root } : {}),
      state: isMember(SESSION_STATES, r.state) ? r.state : 'error',
      lastActivity: r.last_activity,
      createdAt: r.created_at,
      dispatched: r.dispatched === 1,
      access: isMember(ACCESS_LEVELS, r.access) ? r.access : 'full',
      live: false,
      activity: undefined,
      trail: parseTrail(r.steps),
      transcript: o.transcripts.forSession(r.session_id),
      turn: null,
      queued: [],
      ...(r.worktree_path !== null && r.worktree_branch !== null
        ? { worktree: { path: r.worktree_path, branch: r.worktree_branch } }
        : {}),
      agent: r.agent ?? MOCK_AGENT,
      ...(r.model !== null ? { model: r.model } : {}),
      ...(parseUsage(r.usage) !== undefined ? { usage: parseUsage(r.usage)! } : {}),
      ...(r.native_id !== null ? { nativeId: r.native_id } : {}),
      agentSession: null,
      ...(r.ended !== null && isMember(SESSION_END_REASONS, r.ended) ? { ended: r.ended } : {}),
      ...(parseDeskRead(r.desk_read) !== undefined
        ? { deskRead: parseDeskRead(r.desk_read)! }
        : {}),
    };
    if (record.state === 'running' || record.state === 'awaiting_approval') {
      // E10: a session started at the desk (Claude's hooks) runs in its own terminal, which the
      // machine's stop did not touch: it is not said to be cut short, only no longer followed.
      if (isDeskSession(record)) record.state = 'idle';
      else {
        record.state = 'error';
        record.transcript.append('assistant', INTERRUPTED_NOTE, o.now());
      }
      save(record);
    }
    sessions.set(record.sessionId, record);
  }

  /** Drops sessions past the retention or the count, oldest first; never a running one. */
  function prune(keep?: string): void {
    const idle = [...sessions.values()]
      .filter((s) => s.turn === null && s.sessionId !== keep)
      .sort((a, b) => a.lastActivity - b.lastActivity);
    let excess = sessions.size - maxSessions;
    const cutoff = o.now() - retentionMs;
    for (const s of idle) {
      if (excess <= 0 && s.lastActivity >= cutoff) break;
      const removed = o.store.write(`forget session ${s.sessionId.slice(0, 8)}`, () => {
        q.removeTranscript.run(s.sessionId);
        q.remove.run(s.sessionId);
      });
      if (!removed) return;
      sessions.delete(s.sessionId);
      excess -= 1;
    }
  }
  prune();

  return {
    create(fields: {
      prompt: string;
      cwd: string;
      root?: string;
      dispatched: boolean;
      access: AccessLevel;
      now: number;
      worktree?: { path: string; branch: string };
      /** E10: absent = the scripted agent. */
      agent?: string;
    }): SessionRecord {
      const sessionId = randomUUID();
      const record: SessionRecord = {
        sessionId,
        title: titleFrom(fields.prompt),
        cwd: fields.cwd,
        ...(fields.root !== undefined ? { root: fields.root } : {}),
        state: 'idle',
        lastActivity: fields.now,
        createdAt: fields.now,
        dispatched: fields.dispatched,
        access: fields.access,
        live: true,
        activity: undefined,
        trail: EMPTY_TRAIL,
        transcript: o.transcripts.forSession(sessionId),
        turn: null,
        queued: [],
        ...(fields.worktree !== undefined ? { worktree: fields.worktree } : {}),
        agent: fields.agent ?? MOCK_AGENT,
        agentSession: null,
      };
      sessions.set(sessionId, record);
      save(record);
      prune(sessionId);
      return record;
    },
    /** Writes the session's current state (called on every change the phone is told about). */
    save,
    saveInside,
    get: (id: string) => sessions.get(id),
    /** Newest activity first. */
    list: (): SessionRecord[] =>
      [...sessions.values()].sort((a, b) => b.lastActivity - a.lastActivity),
  };
}
