import { describe, expect, it } from 'vitest';
import {
  MAX_QUESTION_ITEMS,
  MAX_SESSIONS,
  parseMachineMessage,
  parsePhoneMessage,
  type MessageResult,
} from './messages.ts';
import {
  MACHINE_MESSAGES,
  PHONE_MESSAGES,
  QUESTION_ITEM,
  SESSION,
} from './test-support/fixtures.ts';

type Msg = Record<string, unknown>;
type Parse = (v: unknown) => MessageResult<unknown>;

// The spec's tables: required fields (plus every message's `ts`) and optional ones.
const MACHINE_FIELDS: Record<keyof typeof MACHINE_MESSAGES, [string[], string[]]> = {
  'machine.status': [
    ['machine', 'pluginVersion'],
    ['dshVersion', 'allowedRoots', 'capabilities', 'pushReceipt', 'instance', 'boxKey'],
  ],
  'session.snapshot': [['sessions'], ['open']],
  'session.update': [['session'], []],
  'approval.request': [
    ['approvalId', 'sessionId', 'title', 'detail', 'createdAt'],
    ['expiresAt', 'tool', 'rule', 'editable', 'presence', 'risk'],
  ],
  'approval.closed': [
    ['approvalId', 'resolution'],
    ['edited', 'by'],
  ],
  'dispatch.result': [
    ['requestId', 'ok'],
    ['sessionId', 'error', 'note', 'reason'],
  ],
  'question.request': [['questionId', 'sessionId', 'items', 'createdAt'], ['expiresAt']],
  'question.closed': [['questionId', 'resolution'], ['by']],
  'turn.final': [['sessionId', 'ok', 'summary'], ['reason']],
  transcript: [
    ['requestId', 'sessionId', 'entries'],
    ['more', 'reason'],
  ],
  error: [['message'], ['context', 'sessionId', 'reason']],
  rules: [['rules'], ['requestId']],
  phones: [['phones'], ['requestId']],
  'room.rotate': [['phoneId', 'box'], []],
};
const PHONE_FIELDS: Record<keyof typeof PHONE_MESSAGES, [string[], string[]]> = {
  'sessions.get': [[], ['phoneId']],
  'approval.respond': [
    ['requestId', 'approvalId', 'decision'],
    ['phoneId', 'scope', 'edited', 'presence'],
  ],
  'dispatch.request': [
    ['requestId', 'prompt', 'worktree'],
    ['cwd', 'access', 'phoneId', 'presence'],
  ],
  'transcript.get': [
    ['requestId', 'sessionId'],
    ['before', 'phoneId'],
  ],
  'session.message': [['requestId', 'sessionId', 'text'], ['phoneId']],
  'question.respond': [['requestId', 'questionId', 'answers'], ['phoneId']],
  'rules.get': [['requestId'], ['phoneId']],
  'rule.revoke': [['requestId', 'ruleId'], ['phoneId']],
  'session.interrupt': [['requestId', 'sessionId'], ['phoneId']],
  'phone.register': [['requestId', 'phoneId', 'name', 'boxKey'], ['webauthn']],
  'phone.revoke': [['requestId', 'phoneId'], []],
};

const without = (m: Msg, ...keys: string[]) => {
  const copy = { ...m };
  for (const k of keys) delete copy[k];
  return copy;
};
const wrongTypeFor = (v: unknown): unknown =>
  typeof v === 'string'
    ? 42
    : typeof v === 'number'
      ? '1'
      : typeof v === 'boolean'
        ? 'true'
        : Array.isArray(v)
          ? {}
          : [];

function expectInvalid(r: MessageResult<unknown>, field?: string) {
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r).toMatchObject({ ignored: false, code: 'invalid' });
  if (field) expect(r.message).toContain(field);
}

const directions: [string, Parse, Record<string, Msg>, Record<string, [string[], string[]]>][] = [
  [
    'machine → phone',
    parseMachineMessage,
    MACHINE_MESSAGES as unknown as Record<string, Msg>,
    MACHINE_FIELDS,
  ],
  [
    'phone → machine',
    parsePhoneMessage,
    PHONE_MESSAGES as unknown as Record<string, Msg>,
    PHONE_FIELDS,
  ],
];

describe.each(directions)(
  '%s: one rejecting test per required field',
  (_dir, parse, fixtures, fields) => {
    const cases = Object.entries(fields).flatMap(([type, [required]]) =>
      ['ts', ...required].map((f) => [type, f] as const),
    );
    it.each(cases)('%s without %s is invalid', (type, field) => {
      expectInvalid(parse(without(fixtures[type]!, field)), field);
    });
    it.each(cases)('%s with a wrongly typed %s is invalid', (type, field) => {
      const m = fixtures[type]!;
      expectInvalid(parse({ ...m, [field]: wrongTypeFor(m[field]) }), field);
    });
    const optional = Object.entries(fields).flatMap(([type, [, opt]]) =>
      opt.map((f) => [type, f] as const),
    );
    it.each(optional)('%s with a wrongly typed optional %s is invalid', (type, field) => {
      const m = fixtures[type]!;
      expectInvalid(parse({ ...m, [field]: wrongTypeFor(m[field]) }));
    });
    it.each(Object.entries(fields))(
      '%s with every optional field absent is valid',
      (type, [, opt]) => {
        const r = parse(without(fixtures[type]!, ...opt));
        expect(r.ok).toBe(true);
      },
    );
  },
);

describe('every message: {"v":1,"type","ts"}', () => {
  it.each<[string, unknown]>([
    ['null', null],
    ['an array', [MACHINE_MESSAGES.error]],
    ['a string', 'hello'],
  ])('%s is invalid', (_w, v) => {
    expectInvalid(parseMachineMessage(v));
    expectInvalid(parsePhoneMessage(v));
  });
  it('a missing or non-string type is invalid', () => {
    expectInvalid(parseMachineMessage({ v: 1, ts: 1 }), 'type');
    expectInvalid(parsePhoneMessage({ v: 1, type: 7, ts: 1 }), 'type');
  });
  it.each<[string, unknown]>([
    ['negative', -1],
    ['fractional', 1.5],
    ['a string', '1700000000000'],
    ['not finite', Infinity],
  ])('ts %s is invalid', (_w, ts) => {
    expectInvalid(parsePhoneMessage({ ...PHONE_MESSAGES['sessions.get'], ts }), 'ts');
  });
  it.each([[0], [2], ['1'], [undefined]])(
    'v = %s is ignored as unknown-version, with the type for the log',
    (v) => {
      expect(parseMachineMessage({ ...MACHINE_MESSAGES.error, v })).toEqual({
        ok: false,
        ignored: true,
        code: 'unknown-version',
        type: 'error',
        message: expect.any(String),
      });
    },
  );
  it('an unknown type is ignored in both directions; the logged type is bounded', () => {
    const long = `x.${'y'.repeat(500)}`;
    const r = parsePhoneMessage({ v: 1, type: long, ts: 1 });
    expect(r).toMatchObject({ ok: false, ignored: true, code: 'unknown-type' });
    if (!r.ok) expect(r.type).toHaveLength(64);
    expect(parseMachineMessage({ v: 1, type: 'push', ts: 1 })).toMatchObject({
      code: 'unknown-type',
    });
  });
  it('D12: a failure message names the field, never its content', () => {
    const secret = 'TOP-SECRET-PROMPT-TEXT';
    const r = parsePhoneMessage({
      ...PHONE_MESSAGES['approval.respond'],
      approvalId: secret.repeat(10),
    });
    expectInvalid(r, 'approvalId');
    expect(JSON.stringify(r)).not.toContain(secret);
    const w = parseMachineMessage(PHONE_MESSAGES['dispatch.request']);
    expect(JSON.stringify(w)).not.toContain('Fix the flaky test');
  });
  it('unknown fields are tolerated and dropped, in nested objects too', () => {
    const r = parseMachineMessage({
      ...MACHINE_MESSAGES['session.update'],
      extra: 1,
      session: { ...SESSION, color: 'red' },
    });
    expect(r).toEqual({ ok: true, value: MACHINE_MESSAGES['session.update'] });
  });
  it('a prototype-polluting key is dropped, not copied', () => {
    const r = parseMachineMessage(
      JSON.parse('{"v":1,"type":"error","ts":1,"message":"m","__proto__":{"x":1}}'),
    );
    expect(r.ok && Object.getPrototypeOf(r.value)).toBe(Object.prototype);
    expect(r.ok && (r.value as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('ids: non-empty, at most 128 characters', () => {
  it.each([
    ['empty', ''],
    ['129 chars', 'i'.repeat(129)],
  ])('%s approvalId is invalid', (_w, approvalId) => {
    expectInvalid(
      parseMachineMessage({ ...MACHINE_MESSAGES['approval.closed'], approvalId }),
      'approvalId',
    );
  });
  it('128 characters is accepted', () => {
    const approvalId = 'i'.repeat(128);
    expect(parseMachineMessage({ ...MACHINE_MESSAGES['approval.closed'], approvalId }).ok).toBe(
      true,
    );
  });
});

describe('closed sets', () => {
  it.each([
    [
      'approval.closed resolution',
      { ...MACHINE_MESSAGES['approval.closed'], resolution: 'allowed' },
      'resolution',
    ],
    [
      'question.closed resolution',
      { ...MACHINE_MESSAGES['question.closed'], resolution: 'answered' },
      'resolution',
    ],
    [
      'session state',
      { ...MACHINE_MESSAGES['session.update'], session: { ...SESSION, state: 'paused' } },
      'state',
    ],
    [
      'session access',
      { ...MACHINE_MESSAGES['session.update'], session: { ...SESSION, access: 'root' } },
      'access',
    ],
  ])('an unknown %s is invalid', (_w, m, field) => {
    expectInvalid(parseMachineMessage(m), field);
  });
  it('an unknown decision is invalid (approvals are never guessed)', () => {
    expectInvalid(
      parsePhoneMessage({ ...PHONE_MESSAGES['approval.respond'], decision: 'yes' }),
      'decision',
    );
  });
  it('v1.2 full access: an unknown access value is invalid with reason bad-access-value and the requestId', () => {
    const r = parsePhoneMessage({ ...PHONE_MESSAGES['dispatch.request'], access: 'danger' });
    expect(r).toMatchObject({
      ok: false,
      ignored: false,
      code: 'invalid',
      reason: 'bad-access-value',
      requestId: 'r-4',
    });
  });
  it('full access is never the default: absent access stays absent', () => {
    const r = parsePhoneMessage(without(PHONE_MESSAGES['dispatch.request'], 'access'));
    expect(r.ok && 'access' in r.value).toBe(false);
  });
  it('an invalid phone request reports its requestId so the machine can answer it', () => {
    const r = parsePhoneMessage({ ...PHONE_MESSAGES['session.message'], text: 5 });
    expect(r).toMatchObject({ code: 'invalid', requestId: 'r-6', type: 'session.message' });
  });
  it("limits on prompt length are the machine's policy: an over-long prompt still parses", () => {
    const r = parsePhoneMessage({
      ...PHONE_MESSAGES['dispatch.request'],
      prompt: 'p'.repeat(9000),
    });
    expect(r.ok).toBe(true);
  });
});

describe('Session', () => {
  const update = (session: unknown) =>
    parseMachineMessage({ ...MACHINE_MESSAGES['session.update'], session });
  it.each(['sessionId', 'title', 'cwd', 'state', 'lastActivity', 'dispatched'])(
    'without %s is invalid',
    (f) => {
      expectInvalid(update(without(SESSION, f)), f);
    },
  );
  it.each(['access', 'live', 'activity', 'steps', 'stepCount'])(
    'optional %s may be absent',
    (f) => {
      expect(update(without(SESSION, f)).ok).toBe(true);
    },
  );
  it('steps accept the compact "read ×5" form and normalise it', () => {
    const r = update({ ...SESSION, steps: ['read ×5', 'bash', 'edit x2'] });
    expect(r.ok && r.value.type === 'session.update' && r.value.session.steps).toEqual([
      { tool: 'read', count: 5 },
      { tool: 'bash' },
      { tool: 'edit', count: 2 },
    ]);
  });
  it('a tool name that merely ends in x and digits is not split ("fix2", "vim-x11")', () => {
    const r = update({ ...SESSION, steps: ['fix2', 'vim-x11', 'read×3'] });
    expect(r.ok && r.value.type === 'session.update' && r.value.session.steps).toEqual([
      { tool: 'fix2' },
      { tool: 'vim-x11' },
      { tool: 'read', count: 3 },
    ]);
  });
  it.each([[[5]], [['']], [[{ count: 2 }]], [[{ tool: 'read', count: -1 }]]])(
    'steps %j are invalid',
    (steps) => {
      expectInvalid(update({ ...SESSION, steps }), 'steps');
    },
  );
  it('a snapshot of more than MAX_SESSIONS sessions is invalid', () => {
    const sessions = Array.from({ length: MAX_SESSIONS + 1 }, () => SESSION);
    expectInvalid(
      parseMachineMessage({ ...MACHINE_MESSAGES['session.snapshot'], sessions }),
      'sessions',
    );
  });
  it('one bad session invalidates the snapshot, naming the field', () => {
    const sessions = [SESSION, { ...SESSION, dispatched: 'yes' }];
    expectInvalid(
      parseMachineMessage({ ...MACHINE_MESSAGES['session.snapshot'], sessions }),
      'dispatched',
    );
  });
});

describe('machine.status capabilities (v1.2)', () => {
  const status = (extra: Msg) =>
    parseMachineMessage({ ...MACHINE_MESSAGES['machine.status'], ...extra });
  it('an absent capability is false (E2, E3, E4, E6 too) and an absent presence is none', () => {
    const r = status({ capabilities: { questionForwarding: true } });
    expect(r.ok && r.value.type === 'machine.status' && r.value.capabilities).toEqual({
      fullAccessDispatch: false,
      questionForwarding: true,
      approvalRules: false,
      approvalEdit: false,
      interrupt: false,
      phones: false,
    });
  });
  it('a non-boolean capability is invalid, never read as enabled', () => {
    expectInvalid(status({ capabilities: { fullAccessDispatch: 'yes' } }), 'fullAccessDispatch');
  });
  it('allowedRoots [] (dispatch off) is kept as []', () => {
    const r = status({ allowedRoots: [] });
    expect(r.ok && r.value.type === 'machine.status' && r.value.allowedRoots).toEqual([]);
  });
  it('allowedRoots with a non-string entry is invalid', () => {
    expectInvalid(status({ allowedRoots: ['/a', 3] }), 'allowedRoots');
  });
});

describe('reason codes', () => {
  it('an unknown code is kept (the phone falls back to the wording)', () => {
    const r = parseMachineMessage({ ...MACHINE_MESSAGES['turn.final'], reason: 'future-code' });
    expect(r.ok && r.value.type === 'turn.final' && r.value.reason).toBe('future-code');
  });
  it('"a stable code (plus params)": an object reason is reduced to its code', () => {
    const r = parseMachineMessage({
      ...MACHINE_MESSAGES['dispatch.result'],
      ok: false,
      reason: { code: 'prompt-too-long-chars', max: 8192 },
    });
    expect(r.ok && r.value.type === 'dispatch.result' && r.value.reason).toBe(
      'prompt-too-long-chars',
    );
  });
});

describe('question.request / question.respond (v1.2)', () => {
  const q = (extra: Msg) =>
    parseMachineMessage({ ...MACHINE_MESSAGES['question.request'], ...extra });
  it.each(['id', 'prompt', 'options', 'multiSelect', 'allowFreeText'])(
    'an item without %s is invalid',
    (f) => {
      expectInvalid(q({ items: [without(QUESTION_ITEM, f)] }), f);
    },
  );
  it.each(['id', 'label'])('an option without %s is invalid', (f) => {
    const options = [without(QUESTION_ITEM.options[0]!, f)];
    expectInvalid(q({ items: [{ ...QUESTION_ITEM, options }] }), f);
  });
  it('no items is invalid', () => expectInvalid(q({ items: [] }), 'items'));
  it('duplicate item ids are invalid', () =>
    expectInvalid(q({ items: [QUESTION_ITEM, QUESTION_ITEM] }), 'unique'));
  it('duplicate option ids are invalid', () => {
    const options = [QUESTION_ITEM.options[0], QUESTION_ITEM.options[0]];
    expectInvalid(q({ items: [{ ...QUESTION_ITEM, options }] }), 'unique');
  });
  it('more than MAX_QUESTION_ITEMS items is invalid', () => {
    const items = Array.from({ length: MAX_QUESTION_ITEMS + 1 }, (_, i) => ({
      ...QUESTION_ITEM,
      id: `q${i}`,
    }));
    expectInvalid(q({ items }), 'items');
  });
  const respond = (answers: unknown) =>
    parsePhoneMessage({ ...PHONE_MESSAGES['question.respond'], answers });
  it.each(['itemId', 'optionIds'])('an answer without %s is invalid', (f) => {
    expectInvalid(respond([without(PHONE_MESSAGES['question.respond'].answers[0], f)]), f);
  });
  it('optionIds must be strings; freeText must be a string', () => {
    expectInvalid(respond([{ itemId: 'q1', optionIds: [1] }]), 'optionIds');
    expectInvalid(respond([{ itemId: 'q1', optionIds: [], freeText: 3 }]), 'freeText');
  });
  it('two answers for one item are invalid', () => {
    const a = { itemId: 'q1', optionIds: ['pg'] };
    expectInvalid(respond([a, a]), 'unique');
  });
  it('a free-text-only answer (no options) is valid', () => {
    expect(respond([{ itemId: 'q1', optionIds: [], freeText: 'MariaDB' }]).ok).toBe(true);
  });
});

describe('transcript entries', () => {
  const t = (entry: Msg) =>
    parseMachineMessage({ ...MACHINE_MESSAGES.transcript, entries: [entry] });
  const entry = MACHINE_MESSAGES.transcript.entries[0];
  it.each(['seq', 'role', 'text', 'ts'])('an entry without %s is invalid', (f) => {
    expectInvalid(t(without(entry, f)), f);
  });
  it('a role other than user/assistant is invalid', () => {
    expectInvalid(t({ ...entry, role: 'system' }), 'role');
  });
  it('transcript.get before must be a non-negative integer', () => {
    expectInvalid(parsePhoneMessage({ ...PHONE_MESSAGES['transcript.get'], before: -1 }), 'before');
  });
});

describe('E1: cards that match the machine', () => {
  const snapshot = (open: unknown) =>
    parseMachineMessage({ ...MACHINE_MESSAGES['session.snapshot'], open });
  it('E1: a snapshot keeps the pending ids it names', () => {
    const r = snapshot({ approvals: ['a-1', 'a-2'], questions: ['q-1'] });
    expect(r.ok && r.value.type === 'session.snapshot' && r.value.open).toEqual({
      approvals: ['a-1', 'a-2'],
      questions: ['q-1'],
    });
  });
  it('E1: a snapshot without open stays without it (older machine: fallback)', () => {
    const r = parseMachineMessage(without(MACHINE_MESSAGES['session.snapshot'], 'open'));
    expect(r.ok && r.value.type === 'session.snapshot' && 'open' in r.value).toBe(false);
  });
  it.each([
    [{ approvals: ['a'] }, 'questions'],
    [{ approvals: [''], questions: [] }, 'approvals[0]'],
    [{ approvals: [7], questions: [] }, 'approvals[0]'],
    [[], 'open'],
  ])('E1: a malformed open %j invalidates the snapshot, never half-read', (open, field) => {
    expectInvalid(snapshot(open), field);
  });
  it('E1: instance and expiresAt are read; a bad one is invalid', () => {
    const s = parseMachineMessage(MACHINE_MESSAGES['machine.status']);
    expect(s.ok && s.value.type === 'machine.status' && s.value.instance).toBe(
      MACHINE_MESSAGES['machine.status'].instance,
    );
    expectInvalid(
      parseMachineMessage({ ...MACHINE_MESSAGES['machine.status'], instance: '' }),
      'instance',
    );
    for (const type of ['approval.request', 'question.request'] as const) {
      expectInvalid(parseMachineMessage({ ...MACHINE_MESSAGES[type], expiresAt: -1 }), 'expiresAt');
    }
  });
});
