// phone → machine: one parser per message type of the spec table (plus v1.2 question.respond).
import { ACCESS_LEVELS, DECISIONS, isMember } from './closed-sets.ts';
import {
  Invalid,
  bool,
  defined,
  id,
  list,
  oneOf,
  optId,
  optInt,
  optStr,
  str,
  unique,
} from './check.ts';
import { MAX_QUESTION_ITEMS, answer, base, type Parser } from './message-parts.ts';
import type { PhoneMessage } from './message-types.ts';

export const PHONE_PARSERS: {
  [K in PhoneMessage['type']]: Parser<Extract<PhoneMessage, { type: K }>>;
} = {
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
