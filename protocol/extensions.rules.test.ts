import { describe, expect, it } from 'vitest';
import { REASON_CODES, RISK_REASONS } from './closed-sets.ts';
import {
  MAX_EDITABLE_BYTES,
  MAX_PHONE_NAME_CHARS,
  MAX_PHONES,
  MAX_RISK_REASON_CHARS,
  MAX_RULE_KEY_CHARS,
  MAX_RULES,
  MAX_TOOL_CHARS,
} from './limits.ts';
import { parseMachineMessage, parsePhoneMessage, type MessageResult } from './messages.ts';
import {
  BY,
  MACHINE_MESSAGES,
  PHONE_ID,
  PHONE_MESSAGES,
  PRESENCE,
  WEBAUTHN,
} from './test-support/fixtures.ts';

type Msg = Record<string, unknown>;

function expectInvalid(r: MessageResult<unknown>, field: string, reason?: string) {
  expect(r).toMatchObject({ ok: false, ignored: false, code: 'invalid' });
  if (r.ok) return;
  expect(r.message).toContain(field);
  if (reason !== undefined) expect(r).toMatchObject({ reason });
  else expect('reason' in r).toBe(false);
}
const machine = (type: keyof typeof MACHINE_MESSAGES, patch: Msg) =>
  parseMachineMessage({ ...MACHINE_MESSAGES[type], ...patch });
const phone = (type: keyof typeof PHONE_MESSAGES, patch: Msg) =>
  parsePhoneMessage({ ...PHONE_MESSAGES[type], ...patch });
const value = <T>(r: MessageResult<T>): T => {
  if (!r.ok) throw new Error(r.message);
  return r.value;
};
const caps = MACHINE_MESSAGES['machine.status'].capabilities;

describe('E2–E7 capabilities: absent = false, never read as enabled', () => {
  it('E2–E7: every capability is read as announced', () => {
    const s = value(parseMachineMessage(MACHINE_MESSAGES['machine.status']));
    expect(s.type === 'machine.status' && s.capabilities).toEqual(caps);
  });
  it.each(['approvalRules', 'approvalEdit', 'interrupt', 'phones'])(
    'E2–E6: a non-boolean %s is invalid, never read as enabled',
    (name) => {
      for (const bad of ['true', 1, null]) {
        expectInvalid(machine('machine.status', { capabilities: { ...caps, [name]: bad } }), name);
      }
    },
  );
  it.each(['none', true, 'RISKY', 'some'])(
    'E7: presence %j is invalid: only risky or all, absence says none',
    (presence) => {
      expectInvalid(machine('machine.status', { capabilities: { ...caps, presence } }), 'presence');
    },
  );
  it('E7: presence all is read; absent presence stays absent', () => {
    const all = value(machine('machine.status', { capabilities: { ...caps, presence: 'all' } }));
    expect(all.type === 'machine.status' && all.capabilities?.presence).toBe('all');
    const none = value(machine('machine.status', { capabilities: { phones: true } }));
    expect(none.type === 'machine.status' && 'presence' in none.capabilities!).toBe(false);
  });
  it.each([
    ['31 bytes', 'A'.repeat(42) + '=='],
    ['33 bytes', 'A'.repeat(44)],
    ['base64url', '3p7bfXt9wbTTW2HC7OQ1Nz-DQ8hbeGdNrfx-FG-IK08'],
    ['a number', 7],
  ])('E6: a boxKey of %s is invalid', (_w, boxKey) => {
    expectInvalid(machine('machine.status', { boxKey }), 'boxKey');
    expectInvalid(phone('phone.register', { boxKey }), 'boxKey');
  });
});

describe('E2: remembered approvals', () => {
  it('E2: a request without tool and rule (older machine) parses without them', () => {
    const { tool: _t, rule: _r, ...old } = MACHINE_MESSAGES['approval.request'];
    const r = value(parseMachineMessage(old));
    expect('tool' in r || 'rule' in r).toBe(false);
  });
  it('E2: a rule may offer session, always, both or nothing (a risky call)', () => {
    for (const scopes of [[], ['session'], ['always'], ['session', 'always']]) {
      const r = value(machine('approval.request', { rule: { key: 'run: npm test', scopes } }));
      expect(r.type === 'approval.request' && r.rule?.scopes).toEqual(scopes);
    }
  });
  it.each([
    [['once'], 'scopes[0]'],
    [['session', 'session'], 'scopes must be unique'],
    [['forever'], 'scopes[0]'],
    [['session', 'always', 'session'], 'scopes'],
    ['session', 'scopes'],
  ])('E2: offered scopes %j are invalid (%s)', (scopes, field) => {
    expectInvalid(machine('approval.request', { rule: { key: 'k', scopes } }), field);
  });
  it('E2: a rule key is at most 512 characters and not blank; a tool at most 256 and not empty', () => {
    const key = '界'.repeat(MAX_RULE_KEY_CHARS);
    expect(machine('approval.request', { rule: { key, scopes: [] } }).ok).toBe(true);
    const long = { key: `${key}x`, scopes: [] };
    expectInvalid(machine('approval.request', { rule: long }), 'key');
    expectInvalid(machine('approval.request', { rule: { key: ' ', scopes: [] } }), 'key');
    expect(machine('approval.request', { tool: 't'.repeat(MAX_TOOL_CHARS) }).ok).toBe(true);
    expectInvalid(machine('approval.request', { tool: 't'.repeat(MAX_TOOL_CHARS + 1) }), 'tool');
    expectInvalid(machine('approval.request', { tool: '' }), 'tool');
  });
  it.each(['once', 'session', 'always'])('E2: an allow with scope %s is read as sent', (scope) => {
    const r = value(phone('approval.respond', { scope, edited: undefined }));
    expect(r.type === 'approval.respond' && r.scope).toBe(scope);
  });
  it('E2: an absent scope stays absent (it means once)', () => {
    const { scope: _s, ...once } = PHONE_MESSAGES['approval.respond'];
    expect('scope' in value(parsePhoneMessage(once))).toBe(false);
  });
  it('E2: an unknown scope is invalid with reason scope-not-offered and the requestId', () => {
    for (const scope of ['forever', 'ONCE', 1]) {
      const r = phone('approval.respond', { scope });
      expectInvalid(r, 'scope', 'scope-not-offered');
      expect(r).toMatchObject({ requestId: 'r-3' });
    }
  });
  it('E2: a deny is never remembered: a deny with session or always is invalid (scope-not-offered)', () => {
    const deny = { decision: 'deny', edited: undefined };
    for (const scope of ['session', 'always']) {
      expectInvalid(phone('approval.respond', { ...deny, scope }), 'scope', 'scope-not-offered');
    }
    expect(phone('approval.respond', { ...deny, scope: 'once' }).ok).toBe(true);
  });
  it('E2: rules lists each rule once; a rule scope is session or always, never once', () => {
    const r = value(parseMachineMessage(MACHINE_MESSAGES.rules));
    expect(r).toEqual(MACHINE_MESSAGES.rules);
    const [first, second] = MACHINE_MESSAGES.rules.rules;
    expectInvalid(machine('rules', { rules: [first, { ...second, ruleId: 'rule-1' }] }), 'unique');
    expectInvalid(machine('rules', { rules: [{ ...first, scope: 'once' }] }), 'scope');
    expectInvalid(machine('rules', { rules: [{ ...first, uses: -1 }] }), 'uses');
    expectInvalid(machine('rules', { rules: [{ ...second, root: 3 }] }), 'root');
  });
  it('E2: rules without requestId (a change notice) is valid; more than MAX_RULES is invalid', () => {
    const { requestId: _r, ...notice } = MACHINE_MESSAGES.rules;
    expect(parseMachineMessage(notice).ok).toBe(true);
    const rules = Array.from({ length: MAX_RULES + 1 }, (_, i) => ({
      ...MACHINE_MESSAGES.rules.rules[0],
      ruleId: `r${i}`,
    }));
    expectInvalid(machine('rules', { rules }), 'rules');
  });
});

describe('E3: allow with changes', () => {
  it('E3: an editable value up to 4 KiB of UTF-8 is read; one byte more is invalid, never clamped', () => {
    const value4k = '界'.repeat(MAX_EDITABLE_BYTES / 4) + 'é'.repeat(MAX_EDITABLE_BYTES / 8);
    const editable = { label: 'Command', value: value4k };
    const r = value(machine('approval.request', { editable }));
    expect(r.type === 'approval.request' && r.editable).toEqual(editable);
    expectInvalid(
      machine('approval.request', { editable: { label: 'Command', value: `${value4k}x` } }),
      'value',
    );
    expectInvalid(machine('approval.request', { editable: { value: 'ls' } }), 'label');
  });
  it('E3: edited is bounded like the value and never blank', () => {
    expect(phone('approval.respond', { edited: 'x'.repeat(MAX_EDITABLE_BYTES) }).ok).toBe(true);
    expectInvalid(
      phone('approval.respond', { edited: 'x'.repeat(MAX_EDITABLE_BYTES + 1) }),
      'edited',
    );
    expectInvalid(phone('approval.respond', { edited: ' \n' }), 'edited');
  });
  it('E3: an edit rides on an allow only: a deny with edited is invalid with not-editable', () => {
    const r = phone('approval.respond', { decision: 'deny', scope: undefined });
    expectInvalid(r, 'edited', 'not-editable');
    expect(r).toMatchObject({ requestId: 'r-3' });
  });
  it('E2 + E3: an edited allow is once only: with session or always it is invalid (scope-not-offered)', () => {
    for (const scope of ['session', 'always']) {
      expectInvalid(phone('approval.respond', { scope }), 'scope', 'scope-not-offered');
    }
    expect(phone('approval.respond', { scope: 'once' }).ok).toBe(true);
  });
  it('E3: approval.closed edited is true or absent; false is invalid', () => {
    expectInvalid(machine('approval.closed', { edited: false }), 'edited');
    const { edited: _e, ...plain } = MACHINE_MESSAGES['approval.closed'];
    expect('edited' in value(parseMachineMessage(plain))).toBe(false);
  });
});

describe('E11: cards that say why', () => {
  it.each(Object.keys(RISK_REASONS))('E11: risk reason %s is read as sent', (reason) => {
    const r = value(machine('approval.request', { risk: { reason } }));
    expect(r.type === 'approval.request' && r.risk).toEqual({ reason });
  });
  it('E11: a request without risk (an older machine, or one it does not class as risky) parses without it', () => {
    const { risk: _r, ...plain } = MACHINE_MESSAGES['approval.request'];
    expect('risk' in value(parseMachineMessage(plain))).toBe(false);
  });
  it('E11: an unknown but well-formed code is read (a newer machine); the app shows it as risky', () => {
    const r = value(machine('approval.request', { risk: { reason: 'deletes-the-cloud' } }));
    expect(r.type === 'approval.request' && r.risk).toEqual({ reason: 'deletes-the-cloud' });
  });
  it('E11: a malformed risk makes the whole request invalid, never half-read', () => {
    const long = 'a'.repeat(MAX_RISK_REASON_CHARS + 1);
    expect(machine('approval.request', { risk: { reason: long.slice(1) } }).ok).toBe(true);
    for (const reason of [long, '', 'Network', 'rm -rf', 'network\n', '-network', 3])
      expectInvalid(machine('approval.request', { risk: { reason } }), 'reason');
    expectInvalid(machine('approval.request', { risk: {} }), 'reason');
    for (const risk of ['network', true, null])
      expectInvalid(machine('approval.request', { risk }), 'risk');
  });
});

describe('E4: stop a running session', () => {
  it('E4: session.interrupt reaches the machine, never the phone (D12)', () => {
    expect(value(parsePhoneMessage(PHONE_MESSAGES['session.interrupt']))).toEqual(
      PHONE_MESSAGES['session.interrupt'],
    );
    expect(parseMachineMessage(PHONE_MESSAGES['session.interrupt'])).toMatchObject({
      ignored: true,
      code: 'wrong-direction',
    });
  });
});

describe('E6: each phone its own identity', () => {
  const ACTIONS = [
    'sessions.get',
    'approval.respond',
    'dispatch.request',
    'transcript.get',
    'session.message',
    'question.respond',
    'rules.get',
    'rule.revoke',
    'session.interrupt',
  ] as const;
  it.each(ACTIONS)('E6: %s carries the sender phoneId; a bad one is invalid', (type) => {
    const r = value(parsePhoneMessage(PHONE_MESSAGES[type]));
    expect((r as { phoneId?: string }).phoneId).toBe(PHONE_ID);
    expectInvalid(phone(type, { phoneId: '' }), 'phoneId');
    expectInvalid(phone(type, { phoneId: 'p'.repeat(129) }), 'phoneId');
  });
  it('E6: a phone name is 1–64 characters, not blank, without control characters', () => {
    const name = '📱'.repeat(MAX_PHONE_NAME_CHARS);
    expect(phone('phone.register', { name }).ok).toBe(true);
    for (const bad of [`${name}x`, '', '   ', 'Pixel\u001b[31m', 'a\nb', 'x\u0085']) {
      expectInvalid(phone('phone.register', { name: bad }), 'name');
    }
  });
  it('E6: phone.register without webauthn (no presence credential) is valid', () => {
    const { webauthn: _w, ...plain } = PHONE_MESSAGES['phone.register'];
    expect(value(parsePhoneMessage(plain))).toEqual(plain);
  });
  it('E6: phones lists each phone once; more than MAX_PHONES is invalid', () => {
    const [first] = MACHINE_MESSAGES.phones.phones;
    expectInvalid(machine('phones', { phones: [first, first] }), 'unique');
    expectInvalid(machine('phones', { phones: [{ ...first, revoked: 'no' }] }), 'revoked');
    expectInvalid(machine('phones', { phones: [{ ...first, presence: undefined }] }), 'presence');
    const phones = Array.from({ length: MAX_PHONES + 1 }, (_, i) => ({
      ...first,
      phoneId: `p${i}`,
    }));
    expectInvalid(machine('phones', { phones }), 'phones');
  });
  it.each(['approval.closed', 'question.closed'] as const)(
    'E6: %s names the phone that decided; a malformed by invalidates it',
    (type) => {
      const r = value(parseMachineMessage(MACHINE_MESSAGES[type]));
      expect((r as { by?: unknown }).by).toEqual(BY);
      expectInvalid(machine(type, { by: { phoneId: PHONE_ID } }), 'name');
      expectInvalid(machine(type, { by: { name: 'x' } }), 'phoneId');
    },
  );
  it('E6: a room.rotate box is standard base64 of at most 2048 characters', () => {
    expectInvalid(machine('room.rotate', { box: 'not base64!' }), 'box');
    expectInvalid(machine('room.rotate', { box: 'AAAA'.repeat(513) }), 'box');
    expect(machine('room.rotate', { box: 'AAAA'.repeat(512) }).ok).toBe(true);
  });
});

describe('E7: verified presence', () => {
  it('E7: approval.request presence is true or absent; false is invalid', () => {
    expectInvalid(machine('approval.request', { presence: false }), 'presence');
    expectInvalid(machine('approval.request', { presence: 'true' }), 'presence');
  });
  it.each(['approval.respond', 'dispatch.request'] as const)(
    'E7: %s reads an assertion of four base64url fields',
    (type) => {
      const r = value(parsePhoneMessage(PHONE_MESSAGES[type]));
      expect((r as { presence?: unknown }).presence).toEqual(PRESENCE);
    },
  );
  it.each([
    ['credentialId', { credentialId: undefined }],
    ['credentialId', { credentialId: 'A'.repeat(1366) }],
    ['authenticatorData', { authenticatorData: 'padded==' }],
    ['clientDataJSON', { clientDataJSON: 'a+b/' }],
    ['clientDataJSON', { clientDataJSON: '' }],
    ['signature', { signature: 7 }],
    ['signature', { signature: 'A'.repeat(1367) }],
  ])(
    'E7: an assertion with a bad %s is invalid with presence-invalid and the requestId',
    (field, patch) => {
      for (const type of ['approval.respond', 'dispatch.request'] as const) {
        const r = phone(type, { presence: { ...PRESENCE, ...patch } });
        expectInvalid(r, field, 'presence-invalid');
        expect(r).toMatchObject({ requestId: PHONE_MESSAGES[type].requestId });
      }
    },
  );
  it('E7: an assertion that is not an object is invalid with presence-invalid', () => {
    expectInvalid(phone('approval.respond', { presence: 'yes' }), 'presence', 'presence-invalid');
  });
  const register = (patch: Msg) => phone('phone.register', { webauthn: { ...WEBAUTHN, ...patch } });
  it.each([-7, -8, -257])('E7: alg %d is accepted', (alg) => {
    expect(register({ alg }).ok).toBe(true);
  });
  it.each([-35, 7, '-7', undefined])('E7: alg %j is invalid', (alg) => {
    expectInvalid(register({ alg }), 'alg');
  });
  it.each(['127.0.0.1', 'Dsh.Example', 'dsh example', '', 'dsh..example', '[::1]'])(
    'E7: rpId %j is invalid (a lowercase host name, never an IP address)',
    (rpId) => {
      expectInvalid(register({ rpId }), 'rpId');
    },
  );
  it.each([
    ['https://app.dsh.example', 'dsh.example', true],
    ['http://localhost:4307', 'localhost', true],
    ['https://dsh.example:8443', 'dsh.example', true],
    ['http://dsh.example', 'dsh.example', false],
    ['https://dsh.example/', 'dsh.example', false],
    ['https://evil-dsh.example', 'dsh.example', false],
    ['https://dsh.example.evil', 'dsh.example', false],
    ['not a url', 'dsh.example', false],
  ])('E7: origin %s with rpId %s: accepted %s', (origin, rpId, ok) => {
    const r = register({ origin, rpId });
    if (ok) expect(r.ok).toBe(true);
    else expectInvalid(r, 'origin');
  });
  it('E7: the public key is standard base64 of at most 2048 bytes', () => {
    expectInvalid(register({ publicKey: WEBAUTHN.publicKey.replace(/\+/g, '-') }), 'publicKey');
    expectInvalid(register({ publicKey: 'A'.repeat(2736) }), 'publicKey');
    expectInvalid(register({ publicKey: '' }), 'publicKey');
  });
});

describe('D12 for E2–E7: a refusal names the field, never its value', () => {
  const CANARY = 'CANARY-E-SECRET';
  it.each([
    ['edited', () => phone('approval.respond', { edited: CANARY.repeat(400) })],
    ['name', () => phone('phone.register', { name: `${CANARY}\u001b` })],
    ['key', () => machine('approval.request', { rule: { key: CANARY.repeat(40), scopes: [] } })],
    [
      'value',
      () => machine('approval.request', { editable: { label: 'x', value: CANARY.repeat(400) } }),
    ],
    [
      'origin',
      () => phone('phone.register', { webauthn: { ...WEBAUTHN, origin: `https://${CANARY}/` } }),
    ],
    [
      'signature',
      () => phone('approval.respond', { presence: { ...PRESENCE, signature: `${CANARY}!` } }),
    ],
    ['box', () => machine('room.rotate', { box: `${CANARY}!` })],
  ])('E2–E7: a bad %s is refused without echoing it', (field, run) => {
    const r = run();
    expectInvalid(r, field, (r as { reason?: string }).reason);
    expect(JSON.stringify(r)).not.toContain(CANARY);
  });
});

describe('E8: reason codes', () => {
  it('E8: every new code is a known reason code, spelled as on the wire', () => {
    const codes = [
      'scope-not-offered',
      'not-editable',
      'not-running',
      'presence-required',
      'presence-invalid',
      'phone-revoked',
      'interrupted',
    ];
    for (const c of codes) expect(REASON_CODES[c as keyof typeof REASON_CODES]).toBe(c);
  });
});
