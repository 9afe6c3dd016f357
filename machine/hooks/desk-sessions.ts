import path from 'node:path';
import { approvalAsk } from '../agent/claude/tools.ts';
import { denial } from '../agent/claude/session.ts';
import type { ApprovalAnswer } from '../agent/agent.ts';
import type { Core } from '../core.ts';
import { rootOf } from '../dispatch/cwd-guard.ts';
import { makeApprove } from '../sessions/approve.ts';
import { titleFrom, type SessionRecord } from '../sessions/sessions.ts';
import {
  catchUpDeskTranscripts,
  openDeskTranscript,
  type DeskTranscript,
} from './desk-transcript.ts';
import { watch, type FSWatcher } from 'node:fs';

// E10 (desk sessions): Claude Code sessions started in any terminal, learnt of through their
// hooks (our hook program relays each event over the machine's socket). Each becomes a v1
// session with `dispatched: false` and `live: false` — no reply can reach a terminal — titled
// by its first prompt, its transcript read from Claude's own session file. A PermissionRequest
// becomes an ordinary approval (E2 rules first, E3 edits, E11 deny messages), answered by
// whichever side is first: the phone (its decision is the hook's output) or the terminal (Claude
// then goes on by itself and a later event of the same session shows it: the card closes as
// `local` and the hook ends with no decision). Nothing is ever allowed by a timeout: an expired
// or withdrawn card gives no decision, and Claude's own dialog at the terminal decides.

export const AGENT_CLAUDE = 'claude';
/** Tools whose request only the terminal can answer (the hook gives no decision). */
const TERMINAL_ONLY = new Set(['AskUserQuestion']);

type HookInput = {
  hook_event_name: string;
  session_id: string;
  cwd: string;
  transcript_path?: string;
  prompt?: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
};

/** Parse at the edge: what every hook event we use carries. */
export function parseHookInput(v: unknown): HookInput | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (
    typeof o.hook_event_name !== 'string' ||
    typeof o.session_id !== 'string' ||
    o.session_id === '' ||
    typeof o.cwd !== 'string' ||
    !path.isAbsolute(o.cwd)
  )
    return null;
  const input = o.tool_input;
  return {
    hook_event_name: o.hook_event_name,
    session_id: o.session_id,
    cwd: o.cwd,
    ...(typeof o.transcript_path === 'string' && path.isAbsolute(o.transcript_path)
      ? { transcript_path: o.transcript_path }
      : {}),
    ...(typeof o.prompt === 'string' ? { prompt: o.prompt } : {}),
    ...(typeof o.tool_name === 'string' ? { tool_name: o.tool_name } : {}),
    ...(typeof input === 'object' && input !== null && !Array.isArray(input)
      ? { tool_input: input as Record<string, unknown> }
      : {}),
  };
}

/** What the hook prints for Claude Code: the phone's decision, or nothing (Claude asks). */
export function hookDecision(
  input: Record<string, unknown>,
  answer: ApprovalAnswer,
): object | null {
  if (answer.allowed)
    return {
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: {
          behavior: 'allow',
          // E3: the edited command runs instead.
          ...(answer.edited !== undefined
            ? { updatedInput: { ...input, command: answer.edited } }
            : {}),
        },
      },
    };
  if (answer.why !== 'denied') return null;
  return {
    hookSpecificOutput: {
      hookEventName: 'PermissionRequest',
      decision: { behavior: 'deny', message: denial(answer) },
    },
  };
}

type Open = {
  approvalId: string;
  tool: string;
  input: Record<string, unknown>;
  terminal: boolean;
};

/** The tool that ran is the one asked about: every field asked for has the value it ran with. */
const ranAsAsked = (asked: Record<string, unknown>, ran: Record<string, unknown>): boolean =>
  Object.entries(asked).every(([k, v]) => JSON.stringify(ran[k]) === JSON.stringify(v));
/** Transcript files watched at once; beyond it a session's file is read at its events only. */
const MAX_WATCHED_TRANSCRIPTS = 64;

type Desk = {
  record: SessionRecord;
  transcript: DeskTranscript | null;
  /** Reads the file as Claude writes it: its last reply often lands after the Stop event. */
  watcher: FSWatcher | null;
  /** Set once titled by its first prompt, and for a session known from before a restart. */
  titled: boolean;
  open: Open[];
};

export function makeDeskSessions(core: Core) {
  const approve = makeApprove(core);
  const desks = new Map<string, Desk>();

  const setState = (s: SessionRecord, state: SessionRecord['state']) => {
    s.state = state;
    s.lastActivity = core.timers.now();
    core.scheduler.stateChanged(s.sessionId);
  };

  function deskFor(h: HookInput): Desk {
    let d = desks.get(h.session_id);
    if (d === undefined) {
      // After a restart the session is known by Claude's id; its transcript was read up to then.
      const kept = core.sessions
        .list()
        .find((s) => !s.dispatched && s.agent === AGENT_CLAUDE && s.nativeId === h.session_id);
      const root = rootOf(h.cwd, core.roots);
      const record =
        kept ??
        core.sessions.create({
          prompt: `Claude Code in ${path.basename(h.cwd) || h.cwd}`,
          cwd: h.cwd,
          ...(root !== undefined ? { root } : {}),
          dispatched: false,
          access: 'standard',
          now: core.timers.now(),
          agent: AGENT_CLAUDE,
        });
      record.live = false;
      record.nativeId = h.session_id;
      core.sessions.save(record);
      d = { record, transcript: null, watcher: null, titled: kept !== undefined, open: [] };
      desks.set(h.session_id, d);
      core.scheduler.stateChanged(record.sessionId);
    }
    // A session known from before a restart was read up to then: from its kept position.
    if (d.transcript === null && h.transcript_path !== undefined) {
      const transcript = openDeskTranscript(
        core,
        d.record,
        h.transcript_path,
        d.titled ? 'end' : 'start',
      );
      d.transcript = transcript;
    }
    // Claude may create the file only after the first event: watched from the first event that
    // finds it.
    if (d.watcher === null && d.transcript !== null && h.transcript_path !== undefined) {
      const transcript = d.transcript;
      d.watcher = watchTranscript(h.transcript_path, () => transcript.read());
    }
    return d;
  }

  // What Claude wrote while no machine ran: read now, not at the session's next event (a session
  // that ended at the terminal meanwhile has none).
  catchUpDeskTranscripts(core);

  /** The terminal answered first: the card closes as `local`, the hook ends with no decision. */
  function closeAtTerminal(d: Desk, which: (o: Open) => boolean): void {
    for (const o of d.open.filter(which)) {
      o.terminal = true;
      core.pending.decideLocally(o.approvalId, false);
    }
  }

  async function permission(d: Desk, h: HookInput, gone: AbortSignal): Promise<object | null> {
    // A question is answered at the terminal: an allow from a card would carry no answers.
    if (h.tool_name === undefined || TERMINAL_ONLY.has(h.tool_name)) return null;
    const input = h.tool_input ?? {};
    const s = d.record;
    let open: Open | undefined;
    const answer = await approve(
      s,
      approvalAsk(h.tool_name, input, h.cwd),
      {
        opened: (approvalId) => {
          open = { approvalId, tool: h.tool_name!, input, terminal: false };
          d.open.push(open);
        },
        answered: () => {
          d.open = d.open.filter((o) => o !== open);
          if (s.state === 'awaiting_approval') setState(s, 'running');
        },
      },
      gone,
    );
    return open?.terminal === true ? null : hookDecision(input, answer);
  }

  /**
   * One inotify watch per desk session while it is known (Linux's default limit is 8,192 per
   * user; desk sessions are a handful): a change reads what is new, as a hook event does. A file
   * that cannot be watched is read at the session's events only.
   */
  function watchTranscript(file: string, read: () => void): FSWatcher | null {
    if (closed || watching() >= MAX_WATCHED_TRANSCRIPTS) return null;
    try {
      const w = watch(file, { persistent: false }, () => read());
      w.on('error', () => w.close());
      return w;
    } catch {
      return null;
    }
  }
  let closed = false;
  const watching = () => [...desks.values()].filter((d) => d.watcher !== null).length;

  return {
    /** Stops reading the desk sessions' files (the machine is closing). */
    close(): void {
      // An event still in flight on the closing socket must not start a watch after this.
      closed = true;
      for (const d of desks.values()) d.watcher?.close();
    },
    /** One hook event from the socket; resolves with the hook's output (or null: none). */
    async handle(event: unknown, gone: AbortSignal): Promise<object | null> {
      const h = parseHookInput(event);
      if (h === null) return null;
      if (h.hook_event_name === 'SessionEnd' && !desks.has(h.session_id)) return null;
      const d = deskFor(h);
      d.transcript?.read();
      const s = d.record;
      switch (h.hook_event_name) {
        case 'UserPromptSubmit':
          closeAtTerminal(d, () => true);
          if (!d.titled && h.prompt !== undefined && h.prompt.trim() !== '') {
            s.title = titleFrom(h.prompt);
            d.titled = true;
          }
          setState(s, 'running');
          return null;
        case 'PermissionRequest':
          return permission(d, h, gone);
        case 'PostToolUse':
        case 'PostToolUseFailure': {
          const ran = h.tool_input ?? {};
          closeAtTerminal(d, (o) => o.tool === h.tool_name && ranAsAsked(o.input, ran));
          return null;
        }
        case 'Interrupt':
          closeAtTerminal(d, () => true);
          setState(s, 'idle');
          return null;
        case 'Stop':
          closeAtTerminal(d, () => true);
          setState(s, 'done');
          return null;
        case 'SessionEnd':
          closeAtTerminal(d, () => true);
          if (s.state === 'running' || s.state === 'awaiting_approval') setState(s, 'idle');
          d.watcher?.close();
          desks.delete(h.session_id);
          return null;
        default:
          return null;
      }
    },
  };
}
