// Parsers for the inner messages, one per direction (D12: each side acts only on its incoming
// types). Unknown `v` or `type` is "ignored" (the caller logs the type, never content); a known
// type with bad fields is "invalid". Unknown fields are tolerated and dropped.
import {
  ACCESS_LEVELS,
  APPROVAL_RESOLUTIONS,
  DECISIONS,
  MACHINE_MESSAGE_TYPES,
  PHONE_MESSAGE_TYPES,
  QUESTION_RESOLUTIONS,
  SESSION_STATES,
  TRANSCRIPT_ROLES,
  isMember,
  type ReasonCode,
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
  optId,
  optInt,
  optStr,
  str,
  strings,
  unique,
  type Fields,
} from './check.ts';
import type {
  Capabilities,
  MachineMessage,
  PhoneMessage,
  QuestionAnswer,
  QuestionItem,
  Session,
  SessionStep,
  TranscriptEntry,
} from './message-types.ts';
import type { Ok } from './result.ts';

export * from './message-types.ts';

export const MAX_SESSIONS = 1000;
export const MAX_STEPS = 256;
export const MAX_ALLOWED_ROOTS = 256;
export const MAX_QUESTION_ITEMS = 32;
export const MAX_QUESTION_OPTIONS = 64;
export const MAX_TRANSCRIPT_ENTRIES = 2000;

export type MessageIgnored = {
  readonly ok: false;
  readonly ignored: true;
  readonly code: 'unknown-type' | 'unknown-version' | 'wrong-direction';
  /** The message's type when it had one (safe to log; bounded to 64 chars). */
  readonly type?: string;
  readonly message: string;
};
export type MessageInvalid = {
  readonly ok: false;
  readonly ignored: false;
  readonly code: 'invalid';
  readonly type?: string;
  readonly message: string;
  /** The request's id when it had a usable one, so the machine can answer the failure. */
  readonly requestId?: string;
  /** A spec reason code for the refusal when one fits (`bad-access-value`). */
  readonly reason?: ReasonCode;
};
export type MessageResult<T> = Ok<T> | MessageIgnored | MessageInvalid;

type Parser<T> = (o: Fields) => T;

const base = (o: Fields) => ({ v: 1 as const, ts: int(o, 'ts') });

function reason(o: Fields): { reason?: string } {
  const r = o.reason;
  // "a stable code (plus params)": accept `{code, …}` too, keep only the code.
  if (isObject(r) && typeof r.code === 'string') return { reason: str(r, 'code', 64) };
  return defined({ reason: optStr(o, 'reason', 64) });
}

function capabilities(v: unknown): Capabilities {
  const c = obj(v, 'capabilities');
  return {
    fullAccessDispatch: optBool(c, 'fullAccessDispatch') ?? false,
    questionForwarding: optBool(c, 'questionForwarding') ?? false,
  };
}

function step(v: unknown): SessionStep {
  if (typeof v === 'string') {
    // Compact form "read ×5" (or "read x5"): the tool name and the collapsed repeat count.
    const m = /^(.*?)\s*[×x](\d+)$/.exec(v);
    if (m && m[1]) return { tool: m[1], count: Number(m[2]) };
    if (v.length > 0) return { tool: v };
  }
  if (isObject(v)) return defined({ tool: str(v, 'tool', 256), count: optInt(v, 'count') });
  throw new Invalid('a step must be a tool name or {tool, count}');
}

function parseSession(v: unknown): Session {
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
    activity: optStr(o, 'activity', 256),
    steps: o.steps === undefined ? undefined : list(o, 'steps', MAX_STEPS, step),
    stepCount: optInt(o, 'stepCount'),
  });
}

function questionItem(v: unknown): QuestionItem {
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

function transcriptEntry(v: unknown): TranscriptEntry {
  const o = obj(v, 'entry');
  return defined({
    seq: int(o, 'seq'),
    role: oneOf(o, 'role', TRANSCRIPT_ROLES),
    text: str(o, 'text'),
    ts: int(o, 'ts'),
    truncated: optBool(o, 'truncated'),
  });
}

function answer(v: unknown): QuestionAnswer {
  const o = obj(v, 'answer');
  return defined({
    itemId: id(o, 'itemId'),
    optionIds: strings(o, 'optionIds', MAX_QUESTION_OPTIONS, 128),
    freeText: optStr(o, 'freeText'),
  });
}

const MACHINE_PARSERS: {
  [K in MachineMessage['type']]: Parser<Extract<MachineMessage, { type: K }>>;
} = {
  'machine.status': (o) =>
    defined({
      ...base(o),
      type: 'machine.status',
      machine: str(o, 'machine'),
      pluginVersion: str(o, 'pluginVersion', 64),
      dshVersion: optStr(o, 'dshVersion', 64),
      allowedRoots:
        o.allowedRoots === undefined ? undefined : strings(o, 'allowedRoots', MAX_ALLOWED_ROOTS),
      capabilities: o.capabilities === undefined ? undefined : capabilities(o.capabilities),
    }),
  'session.snapshot': (o) => ({
    ...base(o),
    type: 'session.snapshot',
    sessions: list(o, 'sessions', MAX_SESSIONS, parseSession),
  }),
  'session.update': (o) => ({
    ...base(o),
    type: 'session.update',
    session: parseSession(o.session),
  }),
  'approval.request': (o) => ({
    ...base(o),
    type: 'approval.request',
    approvalId: id(o, 'approvalId'),
    sessionId: id(o, 'sessionId'),
    title: str(o, 'title'),
    detail: str(o, 'detail'),
    createdAt: int(o, 'createdAt'),
  }),
  'approval.closed': (o) => ({
    ...base(o),
    type: 'approval.closed',
    approvalId: id(o, 'approvalId'),
    resolution: oneOf(o, 'resolution', APPROVAL_RESOLUTIONS),
  }),
  'dispatch.result': (o) =>
    defined({
      ...base(o),
      type: 'dispatch.result',
      requestId: id(o, 'requestId'),
      ok: bool(o, 'ok'),
      sessionId: optId(o, 'sessionId'),
      error: optStr(o, 'error'),
      note: optStr(o, 'note'),
      ...reason(o),
    }),
  'question.request': (o) => {
    const items = list(o, 'items', MAX_QUESTION_ITEMS, questionItem);
    if (items.length === 0) throw new Invalid('items must not be empty');
    unique(
      items.map((x) => x.id),
      'item ids',
    );
    return {
      ...base(o),
      type: 'question.request',
      questionId: id(o, 'questionId'),
      sessionId: id(o, 'sessionId'),
      items,
      createdAt: int(o, 'createdAt'),
    };
  },
  'question.closed': (o) => ({
    ...base(o),
    type: 'question.closed',
    questionId: id(o, 'questionId'),
    resolution: oneOf(o, 'resolution', QUESTION_RESOLUTIONS),
  }),
  'turn.final': (o) =>
    defined({
      ...base(o),
      type: 'turn.final',
      sessionId: id(o, 'sessionId'),
      ok: bool(o, 'ok'),
      summary: str(o, 'summary'),
      ...reason(o),
    }),
  transcript: (o) =>
    defined({
      ...base(o),
      type: 'transcript',
      requestId: id(o, 'requestId'),
      sessionId: id(o, 'sessionId'),
      entries: list(o, 'entries', MAX_TRANSCRIPT_ENTRIES, transcriptEntry),
      more: optBool(o, 'more'),
      ...reason(o),
    }),
  error: (o) =>
    defined({
      ...base(o),
      type: 'error',
      message: str(o, 'message'),
      context: optStr(o, 'context'),
      sessionId: optId(o, 'sessionId'),
      ...reason(o),
    }),
};

const PHONE_PARSERS: { [K in PhoneMessage['type']]: Parser<Extract<PhoneMessage, { type: K }>> } = {
  'sessions.get': (o) =>
    defined({ ...base(o), type: 'sessions.get', requestId: optId(o, 'requestId') }),
  'approval.respond': (o) => ({
    ...base(o),
    type: 'approval.respond',
    requestId: id(o, 'requestId'),
    approvalId: id(o, 'approvalId'),
    decision: oneOf(o, 'decision', DECISIONS),
  }),
  'dispatch.request': (o) => {
    // Limits on the prompt and cwd are the machine's policy (answered with a reason code), so
    // only types are checked here; an unknown access value is refused with its own reason.
    if (o.access !== undefined && !isMember(ACCESS_LEVELS, o.access)) {
      throw new Invalid('access must be standard or full', 'bad-access-value');
    }
    return defined({
      ...base(o),
      type: 'dispatch.request',
      requestId: id(o, 'requestId'),
      prompt: str(o, 'prompt'),
      cwd: optStr(o, 'cwd'),
      worktree: bool(o, 'worktree'),
      access: o.access as 'standard' | 'full' | undefined,
    });
  },
  'transcript.get': (o) =>
    defined({
      ...base(o),
      type: 'transcript.get',
      requestId: id(o, 'requestId'),
      sessionId: id(o, 'sessionId'),
      before: optInt(o, 'before'),
    }),
  'session.message': (o) => ({
    ...base(o),
    type: 'session.message',
    requestId: id(o, 'requestId'),
    sessionId: id(o, 'sessionId'),
    text: str(o, 'text'),
  }),
  'question.respond': (o) => {
    const answers = list(o, 'answers', MAX_QUESTION_ITEMS, answer);
    unique(
      answers.map((a) => a.itemId),
      'answer item ids',
    );
    return {
      ...base(o),
      type: 'question.respond',
      requestId: id(o, 'requestId'),
      questionId: id(o, 'questionId'),
      answers,
    };
  },
};

const loggable = (type: unknown): string | undefined =>
  typeof type === 'string' ? type.slice(0, 64) : undefined;

function parseDirected<T>(
  value: unknown,
  own: Record<string, Parser<T>>,
  other: Record<string, string>,
): MessageResult<T> {
  if (!isObject(value)) {
    return {
      ok: false,
      ignored: false,
      code: 'invalid',
      message: 'a message must be a JSON object',
    };
  }
  const type = loggable(value.type);
  const typed = type === undefined ? {} : { type };
  if (value.v !== 1) {
    return {
      ok: false,
      ignored: true,
      code: 'unknown-version',
      ...typed,
      message: 'message v is not 1',
    };
  }
  if (type === undefined) {
    return { ok: false, ignored: false, code: 'invalid', message: 'type must be a string' };
  }
  if (!Object.prototype.hasOwnProperty.call(own, value.type as string)) {
    const code = isMember(other, value.type) ? 'wrong-direction' : 'unknown-type';
    const message =
      code === 'wrong-direction'
        ? `${type} travels the other way; ignored (D12)`
        : `unknown message type ${type}; ignored`;
    return { ok: false, ignored: true, code, type, message };
  }
  try {
    return { ok: true, value: own[value.type as string]!(value) };
  } catch (e) {
    if (!(e instanceof Invalid)) throw e;
    const requestId =
      typeof value.requestId === 'string' &&
      value.requestId.length > 0 &&
      value.requestId.length <= 128
        ? { requestId: value.requestId }
        : {};
    const why = e.reason ? { reason: e.reason as ReasonCode } : {};
    return {
      ok: false,
      ignored: false,
      code: 'invalid',
      type,
      message: `${type}: ${e.message}`,
      ...requestId,
      ...why,
    };
  }
}

/** For the phone: machine → phone messages only. */
export const parseMachineMessage = (value: unknown): MessageResult<MachineMessage> =>
  parseDirected<MachineMessage>(value, MACHINE_PARSERS, PHONE_MESSAGE_TYPES);

/** For the machine: phone → machine messages only. */
export const parsePhoneMessage = (value: unknown): MessageResult<PhoneMessage> =>
  parseDirected<PhoneMessage>(value, PHONE_PARSERS, MACHINE_MESSAGE_TYPES);
