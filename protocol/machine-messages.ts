// machine → phone: one parser per message type of the spec table (plus v1.2 questions and the
// extensions E1–E7).
import { APPROVAL_RESOLUTIONS, QUESTION_RESOLUTIONS } from './closed-sets.ts';
import {
  approvalRisk,
  approvalRule,
  base64Field,
  boxKey,
  decidedBy,
  editable,
  phoneEntry,
  ruleEntry,
  tool,
} from './extension-parts.ts';
import { MAX_PHONES, MAX_ROTATE_BOX_CHARS, MAX_RULES } from './limits.ts';
import {
  Invalid,
  bool,
  defined,
  id,
  int,
  list,
  oneOf,
  optBool,
  optId,
  optInt,
  optStr,
  optTrue,
  str,
  strings,
  uniqueList,
} from './check.ts';
import {
  MAX_ALLOWED_ROOTS,
  MAX_QUESTION_ITEMS,
  MAX_SESSIONS,
  MAX_TRANSCRIPT_ENTRIES,
  base,
  capabilities,
  openCards,
  parseSession,
  questionItem,
  reason,
  transcriptEntry,
  type Parser,
} from './message-parts.ts';
import type { MachineMessage } from './message-types.ts';
import { parsePushReceipt, type PushReceipt } from './push-receipt.ts';

/** A bad receipt makes the status invalid, like a bad capability: never half-read. */
function pushReceipt(v: unknown): PushReceipt {
  const r = parsePushReceipt(v);
  if (!r.ok) throw new Invalid(`${r.code}: ${r.message}`);
  return r.value;
}

export const MACHINE_PARSERS: {
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
      pushReceipt: o.pushReceipt === undefined ? undefined : pushReceipt(o.pushReceipt),
      instance: optId(o, 'instance'),
      boxKey: o.boxKey === undefined ? undefined : boxKey(o, 'boxKey'),
    }),
  'session.snapshot': (o) =>
    defined({
      ...base(o),
      type: 'session.snapshot',
      sessions: list(o, 'sessions', MAX_SESSIONS, parseSession),
      open: o.open === undefined ? undefined : openCards(o.open),
    }),
  'session.update': (o) => ({
    ...base(o),
    type: 'session.update',
    session: parseSession(o.session),
  }),
  'approval.request': (o) =>
    defined({
      ...base(o),
      type: 'approval.request',
      approvalId: id(o, 'approvalId'),
      sessionId: id(o, 'sessionId'),
      title: str(o, 'title'),
      detail: str(o, 'detail'),
      createdAt: int(o, 'createdAt'),
      expiresAt: optInt(o, 'expiresAt'),
      // E2: optional for the parser: a machine without E2 never sends it.
      tool: o.tool === undefined ? undefined : tool(o),
      rule: o.rule === undefined ? undefined : approvalRule(o.rule),
      editable: o.editable === undefined ? undefined : editable(o.editable),
      presence: optTrue(o, 'presence'),
      risk: o.risk === undefined ? undefined : approvalRisk(o.risk),
    }),
  'approval.closed': (o) =>
    defined({
      ...base(o),
      type: 'approval.closed',
      approvalId: id(o, 'approvalId'),
      resolution: oneOf(o, 'resolution', APPROVAL_RESOLUTIONS),
      edited: optTrue(o, 'edited'),
      by: o.by === undefined ? undefined : decidedBy(o.by),
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
    const items = uniqueList(o, 'items', MAX_QUESTION_ITEMS, questionItem, (x) => x.id, 'item ids');
    if (items.length === 0) throw new Invalid('items must not be empty');
    return defined({
      ...base(o),
      type: 'question.request',
      questionId: id(o, 'questionId'),
      sessionId: id(o, 'sessionId'),
      items,
      createdAt: int(o, 'createdAt'),
      expiresAt: optInt(o, 'expiresAt'),
    });
  },
  'question.closed': (o) =>
    defined({
      ...base(o),
      type: 'question.closed',
      questionId: id(o, 'questionId'),
      resolution: oneOf(o, 'resolution', QUESTION_RESOLUTIONS),
      by: o.by === undefined ? undefined : decidedBy(o.by),
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
  rules: (o) =>
    defined({
      ...base(o),
      type: 'rules',
      requestId: optId(o, 'requestId'),
      rules: uniqueList(o, 'rules', MAX_RULES, ruleEntry, (r) => r.ruleId, 'rule ids'),
    }),
  phones: (o) =>
    defined({
      ...base(o),
      type: 'phones',
      requestId: optId(o, 'requestId'),
      phones: uniqueList(o, 'phones', MAX_PHONES, phoneEntry, (p) => p.phoneId, 'phone ids'),
    }),
  // The box is only checked for shape here; rotate-box.ts opens it (and says why it did not).
  'room.rotate': (o) => ({
    ...base(o),
    type: 'room.rotate',
    phoneId: id(o, 'phoneId'),
    box: base64Field(o, 'box', {
      url: false,
      minBytes: 1,
      maxBytes: (MAX_ROTATE_BOX_CHARS / 4) * 3,
    }),
  }),
  // E9: opened by identity.ts with the pinned machine key; only the shape is checked here.
  'phone.removed': (o) => ({
    ...base(o),
    type: 'phone.removed',
    phoneId: id(o, 'phoneId'),
    box: base64Field(o, 'box', { url: false, minBytes: 1, maxBytes: 512 }),
  }),
};
