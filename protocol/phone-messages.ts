// phone → machine: one parser per message type of the spec table (plus v1.2 question.respond and
// the extensions E2, E4, E6, E7, E9).
import { ACCESS_LEVELS, APPROVAL_SCOPES, DECISIONS, isMember } from './closed-sets.ts';
import {
  Invalid,
  bool,
  defined,
  id,
  oneOf,
  optId,
  optInt,
  optStr,
  str,
  text,
  uniqueList,
  type Fields,
} from './check.ts';
import { MAX_ENVELOPE_BYTES } from './limits.ts';
import {
  base64Field,
  boxKey,
  denyMessage,
  edited,
  phoneName,
  presenceAssertion,
  webauthnCredential,
} from './extension-parts.ts';
import { MAX_AGENT_NAME_CHARS } from './limits.ts';
import { MAX_QUESTION_ITEMS, answer, base, type Parser } from './message-parts.ts';
import type { ApprovalRespond, PhoneMessage } from './message-types.ts';

/** E9: the box holds a label and one SHA-256 (identity.ts): far below this. */
const MAX_PHONE_SEALED_BOX_BYTES = 512;

/** E6: every phone action may name its sender. */
const from = (o: Fields) => ({ ...base(o), phoneId: optId(o, 'phoneId') });

const presence = (o: Fields) =>
  o.presence === undefined ? undefined : presenceAssertion(o.presence);

/**
 * E2/E3: a scope other than `once` and an edit only ride on an allow (a deny is never remembered,
 * never edited), and never together. An unknown scope is one no request offered. Refused with the
 * extension's reason code so the machine can answer it and the approval stays pending.
 */
function respondExtras(o: Fields, decision: string): Pick<ApprovalRespond, 'scope' | 'edited'> {
  if (o.scope !== undefined && !isMember(APPROVAL_SCOPES, o.scope)) {
    throw new Invalid('scope must be one of once, session, always', 'scope-not-offered');
  }
  const scope = o.scope as ApprovalRespond['scope'];
  if (decision !== 'allow' && scope !== undefined && scope !== 'once') {
    throw new Invalid('scope other than once applies to allow only', 'scope-not-offered');
  }
  if (decision !== 'allow' && o.edited !== undefined) {
    throw new Invalid('edited applies to allow only', 'not-editable');
  }
  // A rule's key describes the request as asked; remembering it for an edited command would
  // allow later what the owner just chose to change.
  if (o.edited !== undefined && scope !== undefined && scope !== 'once') {
    throw new Invalid('scope must be once when edited is set', 'scope-not-offered');
  }
  return { scope, edited: edited(o) };
}

export const PHONE_PARSERS: {
  [K in PhoneMessage['type']]: Parser<Extract<PhoneMessage, { type: K }>>;
} = {
  'sessions.get': (o) =>
    defined({ ...from(o), type: 'sessions.get', requestId: optId(o, 'requestId') }),
  'approval.respond': (o) => {
    const decision = oneOf(o, 'decision', DECISIONS);
    return defined({
      ...from(o),
      type: 'approval.respond',
      requestId: id(o, 'requestId'),
      approvalId: id(o, 'approvalId'),
      decision,
      ...respondExtras(o, decision),
      presence: presence(o),
      message: denyMessage(o, decision),
    });
  },
  'dispatch.request': (o) => {
    // Limits on the prompt and cwd are the machine's policy (answered with a reason code), so
    // only types are checked here; an unknown access value is refused with its own reason.
    if (o.access !== undefined && !isMember(ACCESS_LEVELS, o.access)) {
      throw new Invalid('access must be standard or full', 'bad-access-value');
    }
    return defined({
      ...from(o),
      type: 'dispatch.request',
      requestId: id(o, 'requestId'),
      prompt: str(o, 'prompt'),
      cwd: optStr(o, 'cwd'),
      worktree: bool(o, 'worktree'),
      access: o.access as 'standard' | 'full' | undefined,
      presence: presence(o),
      agent: optStr(o, 'agent', MAX_AGENT_NAME_CHARS),
    });
  },
  'transcript.get': (o) =>
    defined({
      ...from(o),
      type: 'transcript.get',
      requestId: id(o, 'requestId'),
      sessionId: id(o, 'sessionId'),
      before: optInt(o, 'before'),
    }),
  'session.message': (o) =>
    defined({
      ...from(o),
      type: 'session.message',
      requestId: id(o, 'requestId'),
      sessionId: id(o, 'sessionId'),
      text: str(o, 'text'),
    }),
  'question.respond': (o) => {
    const answers = uniqueList(
      o,
      'answers',
      MAX_QUESTION_ITEMS,
      answer,
      (a) => a.itemId,
      'answer item ids',
    );
    return defined({
      ...from(o),
      type: 'question.respond',
      requestId: id(o, 'requestId'),
      questionId: id(o, 'questionId'),
      answers,
    });
  },
  'rules.get': (o) => defined({ ...from(o), type: 'rules.get', requestId: id(o, 'requestId') }),
  'rule.revoke': (o) =>
    defined({
      ...from(o),
      type: 'rule.revoke',
      requestId: id(o, 'requestId'),
      ruleId: id(o, 'ruleId'),
    }),
  'session.interrupt': (o) =>
    defined({
      ...from(o),
      type: 'session.interrupt',
      requestId: id(o, 'requestId'),
      sessionId: id(o, 'sessionId'),
    }),
  'phone.register': (o) =>
    defined({
      ...base(o),
      type: 'phone.register',
      requestId: id(o, 'requestId'),
      phoneId: id(o, 'phoneId'),
      name: phoneName(o),
      boxKey: boxKey(o, 'boxKey'),
      webauthn: o.webauthn === undefined ? undefined : webauthnCredential(o.webauthn),
    }),
  'phone.revoke': (o) =>
    defined({
      ...base(o),
      type: 'phone.revoke',
      requestId: id(o, 'requestId'),
      phoneId: id(o, 'phoneId'),
      presence: presence(o),
    }),
  'phone.approve': (o) =>
    defined({
      ...base(o),
      type: 'phone.approve',
      requestId: id(o, 'requestId'),
      phoneId: id(o, 'phoneId'),
      presence: presence(o),
    }),
  // E9: only the shape here; the machine checks the box against the phone's registered key, then
  // parses `message` as one more phone message (never another phone.sealed).
  'phone.sealed': (o) => ({
    ...base(o),
    type: 'phone.sealed',
    phoneId: id(o, 'phoneId'),
    message: text(o, 'message', { bytes: MAX_ENVELOPE_BYTES }),
    box: base64Field(o, 'box', { url: false, minBytes: 1, maxBytes: MAX_PHONE_SEALED_BOX_BYTES }),
  }),
};
