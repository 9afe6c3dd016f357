import { describe, expect, it } from 'vitest';
import { parseIncoming } from './parse.ts';
import { parseCommandApproval, parseUserInput, questionOf, userInputResponse } from './requests.ts';

// Parse at the edge: what the app-server writes is checked before anything acts on it, and a
// request whose params do not check out is refused (never allowed).

describe('Codex app-server messages at the edge', () => {
  it('tells responses, errors, requests and notifications apart', () => {
    expect(parseIncoming('{"id":1,"result":{"a":1}}')).toEqual({
      ok: true,
      value: { kind: 'response', id: 1, result: { a: 1 } },
    });
    expect(parseIncoming('{"id":2,"error":{"code":-32600,"message":"bad"}}')).toEqual({
      ok: true,
      value: { kind: 'error-response', id: 2, code: -32600, message: 'bad' },
    });
    expect(parseIncoming('{"id":0,"method":"item/tool/requestUserInput","params":{}}')).toEqual({
      ok: true,
      value: { kind: 'request', id: 0, method: 'item/tool/requestUserInput', params: {} },
    });
    expect(parseIncoming('{"method":"turn/started","params":{}}')).toEqual({
      ok: true,
      value: { kind: 'notification', method: 'turn/started', params: {} },
    });
  });

  it.each(['not json', '[1,2]', '{"id":1}', '{"id":{"x":1},"method":"m"}', '{"result":1}'])(
    'refuses %s',
    (line) => {
      expect(parseIncoming(line).ok).toBe(false);
    },
  );

  it('E10: an approval without its ids, or questions without labels, is not acted on', () => {
    expect(parseCommandApproval({ threadId: 't', turnId: 'u', command: 'ls' })).toBeNull();
    expect(
      parseCommandApproval({ threadId: 't', turnId: 'u', itemId: 'i', command: 7 }),
    ).toBeNull();
    const q = { id: 'c', header: 'H', question: 'Q?', isOther: false, isSecret: false };
    expect(parseUserInput({ threadId: 't', turnId: 'u', itemId: 'i', questions: [] })).toBeNull();
    expect(
      parseUserInput({
        threadId: 't',
        turnId: 'u',
        itemId: 'i',
        questions: [{ ...q, options: [{}] }],
      }),
    ).toBeNull();
    expect(
      parseUserInput({
        threadId: 't',
        turnId: 'u',
        itemId: 'i',
        questions: [{ ...q, options: null }],
      }),
    ).not.toBeNull();
  });

  it('E10: a question without options is answered in words; answers go back per question id', () => {
    const q = {
      id: 'name',
      header: '',
      question: 'Name?',
      isOther: false,
      isSecret: false,
      options: null,
    };
    expect(questionOf(q)).toEqual({
      prompt: 'Name?',
      options: [],
      multiSelect: false,
      allowFreeText: true,
    });
    expect(
      userInputResponse([q, { ...q, id: 'other' }], {
        ok: true,
        choices: [{ labels: [], freeText: 'Ada' }],
      }),
    ).toEqual({ answers: { name: { answers: ['Ada'] } } });
    expect(userInputResponse([q], { ok: false, why: 'expired' })).toEqual({ answers: {} });
  });
});
