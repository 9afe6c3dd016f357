import { describe, expect, it } from 'vitest';
import * as real from '../../protocol/messages.ts';
import { loadNacl } from './nacl-on-demand.ts';
import * as shim from './messages-on-demand.ts';

// A8: protocol/'s message parsers go through this module in the app build (vite.config.ts),
// loaded with the crypto library. A parse must fail loudly before, give exactly
// protocol/messages.ts's results after, and every export of protocol/messages.ts must exist here.
const status = { type: 'machine.status', v: 1, ts: 1, name: 'desk', instance: 'i-1' };

describe('A8: the message parsers on demand', () => {
  it('A8: a parse before loadNacl() resolved throws, never guesses', () => {
    expect(() => shim.parseMachineMessage(status)).toThrow(shim.MESSAGES_NOT_LOADED);
    expect(() => shim.parsePhoneMessage({ type: 'sessions.get' })).toThrow(
      shim.MESSAGES_NOT_LOADED,
    );
  });

  it('A8: once loadNacl() resolved, every export gives exactly what protocol/messages.ts gives', async () => {
    await loadNacl();
    for (const value of [status, { type: 'approval.request' }, { type: 'nope' }, 7])
      expect(shim.parseMachineMessage(value)).toEqual(real.parseMachineMessage(value));
    const phone = { type: 'sessions.get', v: 1, ts: 1, requestId: 'r-1' };
    expect(shim.parsePhoneMessage(phone)).toEqual(real.parsePhoneMessage(phone));
    const missing = Object.keys(real).filter((name) => !(name in shim));
    expect(missing).toEqual([]);
    for (const name of Object.keys(real).filter((n) => n.startsWith('MAX_')))
      expect((shim as Record<string, unknown>)[name]).toBe((real as Record<string, unknown>)[name]);
  });
});
