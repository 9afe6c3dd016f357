import { describe, expect, it } from 'vitest';
import {
  elicitationAnswer,
  elicitationFields,
  permissionAsk,
  permissionOutcome,
  planText,
  turnUsage,
} from './mapping.ts';

// E10: the ACP adapter's mapping, without an agent: the option picked by kind, never
// allow_always; commands, diffs and other tools as cards; forms as questions; usage.

const OPTIONS = [
  { optionId: 'proceed_always', name: 'Always', kind: 'allow_always' as const },
  { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' as const },
  { optionId: 'cancel', name: 'Reject', kind: 'reject_once' as const },
];

describe('E10: ACP requests ↔ the seam', () => {
  it('E10: Allow picks the allow_once option and Deny the reject_once one, by kind; never allow_always; no such option fails closed', () => {
    expect(permissionOutcome({ allowed: true }, OPTIONS)).toEqual({
      outcome: { outcome: 'selected', optionId: 'proceed_once' },
    });
    expect(permissionOutcome({ allowed: false, why: 'denied' }, OPTIONS)).toEqual({
      outcome: { outcome: 'selected', optionId: 'cancel' },
    });
    expect(permissionOutcome({ allowed: false, why: 'cancelled' }, OPTIONS)).toEqual({
      outcome: { outcome: 'cancelled' },
    });
    expect(permissionOutcome({ allowed: true }, [OPTIONS[0]!])).toEqual({
      outcome: { outcome: 'cancelled' },
    });
  });

  it('E10: a command card shows the command (argv script, rawInput, or title) and is never editable; a diff is unified; any other tool shows its input', () => {
    const argv = permissionAsk(
      {
        toolCallId: 't',
        kind: 'execute',
        title: 'x',
        rawInput: { command: ['/bin/bash', '-lc', 'npm test'] },
      },
      '/r',
    );
    expect(argv).toMatchObject({ tool: 'run', agentTool: 'execute', command: 'npm test' });
    expect(argv).toMatchObject({ editable: false });
    expect(
      permissionAsk({ toolCallId: 't', kind: 'execute', title: '`ls -la`' }, '/r'),
    ).toMatchObject({ command: 'ls -la', detail: 'ls -la' });
    const edit = permissionAsk(
      {
        toolCallId: 't',
        kind: 'edit',
        title: 'Edit a.txt',
        content: [{ type: 'diff', path: '/r/a.txt', oldText: 'one\n', newText: 'two\n' }],
      },
      '/r',
    );
    expect(edit).toMatchObject({ tool: 'write', path: '/r/a.txt', agentTool: 'edit' });
    expect(edit.detail).toContain('--- a/a.txt\n+++ b/a.txt');
    expect(edit.detail).toContain('-one\n+two');
    const fetch = permissionAsk(
      { toolCallId: 't', kind: 'fetch', title: 'Fetch x', rawInput: { url: 'https://x' } },
      '/r',
    );
    expect(fetch).toMatchObject({ tool: 'other', agentTool: 'fetch', title: 'Fetch x' });
    expect(fetch.detail).toContain('https://x');
  });

  it('E10: a form becomes questions (options by oneOf/enum, an array multi-select, <key>_custom as Other); the answer goes back as consts', () => {
    const fields = elicitationFields({
      mode: 'form',
      sessionId: 's',
      message: 'Which colour?',
      requestedSchema: {
        type: 'object',
        properties: {
          q: {
            type: 'string',
            title: 'Colour',
            oneOf: [
              { const: 'r', title: 'Red' },
              { const: 'b', title: 'Blue' },
            ],
          },
          q_custom: { type: 'string', title: 'Other' },
        },
      },
    })!;
    expect(fields.map((f) => f.question)).toEqual([
      {
        prompt: 'Which colour?',
        header: 'Colour',
        options: ['Red', 'Blue'],
        multiSelect: false,
        allowFreeText: true,
      },
    ]);
    expect(elicitationAnswer(fields, { ok: true, choices: [{ labels: ['Blue'] }] })).toEqual({
      action: 'accept',
      content: { q: 'b' },
    });
    expect(
      elicitationAnswer(fields, { ok: true, choices: [{ labels: [], freeText: 'green' }] }),
    ).toEqual({ action: 'accept', content: { q_custom: 'green' } });
    expect(elicitationAnswer(fields, { ok: false, why: 'denied' })).toEqual({ action: 'decline' });
    expect(elicitationAnswer(fields, { ok: false, why: 'cancelled' })).toEqual({
      action: 'cancel',
    });
    const multi = elicitationFields({
      mode: 'form',
      sessionId: 's',
      message: 'Pick',
      requestedSchema: {
        properties: {
          a: { type: 'array', description: 'Which?', items: { type: 'string', enum: ['x', 'y'] } },
          b: { type: 'string', description: 'Why?' },
        },
      },
    })!;
    expect(multi.map((f) => f.question)).toEqual([
      { prompt: 'Which?', options: ['x', 'y'], multiSelect: true, allowFreeText: false },
      { prompt: 'Why?', options: [], multiSelect: false, allowFreeText: true },
    ]);
    expect(
      elicitationFields({
        mode: 'url',
        sessionId: 's',
        message: 'm',
        url: 'https://x',
        elicitationId: 'e',
      } as never),
    ).toBeNull();
  });

  it('E10: usage from ACP usage or Gemini quota; a plan as a checklist', () => {
    expect(
      turnUsage({
        stopReason: 'end_turn',
        usage: { inputTokens: 10, outputTokens: 2, cachedReadTokens: 5, totalTokens: 17 },
      } as never),
    ).toEqual({ counts: { input: 15, output: 2 }, model: null });
    expect(
      turnUsage({
        stopReason: 'end_turn',
        _meta: {
          quota: {
            token_count: { input_tokens: 100, output_tokens: 20 },
            model_usage: [
              { model: 'auto', token_count: { input_tokens: 0, output_tokens: 0 } },
              { model: 'gemini-2.5-flash', token_count: { input_tokens: 100, output_tokens: 20 } },
            ],
          },
        },
      }),
    ).toEqual({ counts: { input: 100, output: 20 }, model: 'gemini-2.5-flash' });
    expect(turnUsage({ stopReason: 'end_turn' })).toEqual({ counts: null, model: null });
    expect(
      planText([
        { content: 'read', priority: 'high', status: 'completed' },
        { content: 'write', priority: 'low', status: 'pending' },
      ]),
    ).toBe('Plan:\n[x] read\n[ ] write');
  });
});
