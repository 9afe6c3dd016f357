// Parsers for the pieces several messages share (sessions, question items, transcript entries,
// answers) and the bounds they enforce. They throw `Invalid`; messages.ts turns that into a result.
import {
  ACCESS_LEVELS,
  PRESENCE_REQUIREMENTS,
  SESSION_STATES,
  TRANSCRIPT_ROLES,
} from './closed-sets.ts';
import {
  Invalid,
  bool,
  defined,
  id,
  int,
  isObject,
  list,
  obj,
  oneOf,
  optBool,
  optInt,
  optStr,
  str,
  strings,
  unique,
  type Fields,
} from './check.ts';
import { reasonCode } from './extension-parts.ts';
import { MAX_AGENT_NAME_CHARS, MAX_AGENTS, MAX_MODEL_CHARS, MAX_TOOL_CHARS } from './limits.ts';
import type {
  AgentUsage,
  Capabilities,
  OpenCards,
  QuestionAnswer,
  QuestionItem,
  Session,
  SessionStep,
  TranscriptEntry,
} from './message-types.ts';

export const MAX_SESSIONS = 1000;
export const MAX_STEPS = 256;
export const MAX_ALLOWED_ROOTS = 256;
export const MAX_QUESTION_ITEMS = 32;
export const MAX_QUESTION_OPTIONS = 64;
export const MAX_TRANSCRIPT_ENTRIES = 2000;
/** E1: ids per list of `session.snapshot.open`. */
export const MAX_OPEN_CARDS = 1000;

export type Parser<T> = (o: Fields) => T;

export const base = (o: Fields) => ({ v: 1 as const, ts: int(o, 'ts') });

export function reason(o: Fields): { reason?: string } {
  const r = o.reason;
  // "a stable code (plus params)": accept `{code, …}` too, keep only the code.
  if (isObject(r) && typeof r.code === 'string') return { reason: str(r, 'code', 64) };
  return defined({ reason: optStr(o, 'reason', 64) });
}

/** Absent = false (or no presence); anything but a boolean (or a known policy) is invalid. */
export function capabilities(v: unknown): Capabilities {
  const c = obj(v, 'capabilities');
  return defined({
    fullAccessDispatch: optBool(c, 'fullAccessDispatch') ?? false,
    questionForwarding: optBool(c, 'questionForwarding') ?? false,
    approvalRules: optBool(c, 'approvalRules') ?? false,
    approvalEdit: optBool(c, 'approvalEdit') ?? false,
    interrupt: optBool(c, 'interrupt') ?? false,
    phones: optBool(c, 'phones') ?? false,
    presence: c.presence === undefined ? undefined : oneOf(c, 'presence', PRESENCE_REQUIREMENTS),
    agents:
      c.agents === undefined ? undefined : strings(c, 'agents', MAX_AGENTS, MAX_AGENT_NAME_CHARS),
  });
}

/** E1: a list of pending ids; each id is bounded like every other id. */
export function openCards(v: unknown): OpenCards {
  const o = obj(v, 'open');
  const ids = (key: string) => list(o, key, MAX_OPEN_CARDS, (x) => id({ id: x }, 'id'));
  return { approvals: ids('approvals'), questions: ids('questions') };
}

function step(v: unknown): SessionStep {
  if (typeof v === 'string') {
    // Compact form "read ×5" (or "read x5"): the tool name and the collapsed repeat count.
    const m = /^(.+?)(?:\s*×|\s+x)(\d+)$/.exec(v);
    if (m && m[1]) return { tool: m[1], count: Number(m[2]) };
    if (v.length > 0) return { tool: v };
  }
  if (isObject(v)) {
    return defined({ tool: str(v, 'tool', MAX_TOOL_CHARS), count: optInt(v, 'count') });
  }
  throw new Invalid('a step must be a tool name or {tool, count}');
}

export function parseSession(v: unknown): Session {
  const o = obj(v, 'session');
  return defined({
    sessionId: id(o, 'sessionId'),
    title: str(o, 'title'),
    cwd: str(o, 'cwd'),
    state: oneOf(o, 'state', SESSION_STATES),
    lastActivity: int(o, 'lastActivity'),
    dispatched: bool(o, 'dispatched'),
    access: o.access === undefined ? undefined : oneOf(o, 'access', ACCESS_LEVELS),
    live: optBool(o, 'live'),
    activity: optStr(o, 'activity', MAX_TOOL_CHARS),
    steps: o.steps === undefined ? undefined : list(o, 'steps', MAX_STEPS, step),
    stepCount: optInt(o, 'stepCount'),
    ended: o.ended === undefined ? undefined : reasonCode(o.ended, 'ended'),
    agent: optStr(o, 'agent', MAX_AGENT_NAME_CHARS),
    model: optStr(o, 'model', MAX_MODEL_CHARS),
    usage: o.usage === undefined ? undefined : agentUsage(o.usage),
  });
}

/** E10: counts are non-negative integers; a cost is a finite non-negative number of dollars. */
function agentUsage(v: unknown): AgentUsage {
  const u = obj(v, 'usage');
  const cost = u.costUsd;
  // NaN and Infinity fail too; the message is short because this runs in the first load (A8).
  if (cost !== undefined && !(typeof cost === 'number' && cost >= 0 && cost < Infinity))
    throw new Invalid('bad usage.costUsd');
  return defined({
    inputTokens: int(u, 'inputTokens'),
    outputTokens: int(u, 'outputTokens'),
    costUsd: cost as number | undefined,
  });
}

export function questionItem(v: unknown): QuestionItem {
  const o = obj(v, 'item');
  const options = list(o, 'options', MAX_QUESTION_OPTIONS, (ov) => {
    const opt = obj(ov, 'option');
    return defined({
      id: id(opt, 'id'),
      label: str(opt, 'label'),
      description: optStr(opt, 'description'),
    });
  });
  unique(
    options.map((x) => x.id),
    'option ids',
  );
  return {
    id: id(o, 'id'),
    prompt: str(o, 'prompt'),
    options,
    multiSelect: bool(o, 'multiSelect'),
    allowFreeText: bool(o, 'allowFreeText'),
  };
}

export function transcriptEntry(v: unknown): TranscriptEntry {
  const o = obj(v, 'entry');
  return defined({
    seq: int(o, 'seq'),
    role: oneOf(o, 'role', TRANSCRIPT_ROLES),
    text: str(o, 'text'),
    ts: int(o, 'ts'),
    truncated: optBool(o, 'truncated'),
  });
}

export function answer(v: unknown): QuestionAnswer {
  const o = obj(v, 'answer');
  return defined({
    itemId: id(o, 'itemId'),
    optionIds: strings(o, 'optionIds', MAX_QUESTION_OPTIONS, 128),
    freeText: optStr(o, 'freeText'),
  });
}
