import { describe, expect, it } from 'vitest';
import { REASON_CODES } from './closed-sets.ts';
import { MAX_AGENT_NAME_CHARS, MAX_AGENTS, MAX_MODEL_CHARS } from './limits.ts';
import { parseMachineMessage, parsePhoneMessage, type MessageResult } from './messages.ts';
import { MACHINE_MESSAGES, PHONE_MESSAGES } from './test-support/fixtures.ts';

// E10 at the wire: capabilities.agents, dispatch.request.agent, Session.agent/model/usage.

const value = <T>(r: MessageResult<T>): T => {
  if (!r.ok) throw new Error(r.message);
  return r.value;
};
const status = MACHINE_MESSAGES['machine.status'];
const update = MACHINE_MESSAGES['session.update'];
const withCaps = (agents: unknown) =>
  parseMachineMessage({ ...status, capabilities: { ...status.capabilities, agents } });
const withSession = (patch: Record<string, unknown>) =>
  parseMachineMessage({ ...update, session: { ...update.session, ...patch } });

describe('E10: real agents on the wire', () => {
  it('E10: capabilities.agents is a bounded list of bounded names; absent stays absent', () => {
    expect(value(withCaps(['claude', 'codex']))).toMatchObject({
      capabilities: { agents: ['claude', 'codex'] },
    });
    const plain = value(parseMachineMessage(status));
    expect(plain.type === 'machine.status' && plain.capabilities?.agents).toBeUndefined();
    expect(withCaps(Array(MAX_AGENTS + 1).fill('a')).ok).toBe(false);
    expect(withCaps(['x'.repeat(MAX_AGENT_NAME_CHARS + 1)]).ok).toBe(false);
    expect(withCaps('claude').ok).toBe(false);
  });

  it('E10: Session.agent, model and usage parse; a bad usage or an overlong model is refused', () => {
    const s = value(
      withSession({
        agent: 'claude',
        model: 'claude-opus-5-5',
        usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.01 },
      }),
    );
    expect(s.type === 'session.update' && s.session).toMatchObject({
      agent: 'claude',
      model: 'claude-opus-5-5',
      usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.01 },
    });
    expect(withSession({ usage: { inputTokens: -1, outputTokens: 0 } }).ok).toBe(false);
    expect(withSession({ usage: { inputTokens: 1, outputTokens: 0, costUsd: 'free' } }).ok).toBe(
      false,
    );
    expect(withSession({ model: 'm'.repeat(MAX_MODEL_CHARS + 1) }).ok).toBe(false);
  });

  it('E10: dispatch.request.agent is optional and bounded; agent-unavailable is a known reason', () => {
    const d = value(parsePhoneMessage({ ...PHONE_MESSAGES['dispatch.request'], agent: 'codex' }));
    expect(d).toMatchObject({ agent: 'codex' });
    expect(
      parsePhoneMessage({
        ...PHONE_MESSAGES['dispatch.request'],
        agent: 'x'.repeat(MAX_AGENT_NAME_CHARS + 1),
      }).ok,
    ).toBe(false);
    expect(REASON_CODES['agent-unavailable']).toBe('agent-unavailable');
  });
});
