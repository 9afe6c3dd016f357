import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { QuestionItem } from '../../protocol/index.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';
import type { MachineHandle } from '../machine.ts';
import { parseAnswer, parseDeskLine, resolveId, runDeskLine } from './desk.ts';

const single: QuestionItem = {
  id: 'q1',
  prompt: 'Color?',
  options: [
    { id: '1', label: 'Red' },
    { id: '2', label: 'Blue' },
  ],
  multiSelect: false,
  allowFreeText: false,
};
const multi: QuestionItem = { ...single, id: 'q2', multiSelect: true };
const text: QuestionItem = {
  id: 'q3',
  prompt: 'Why?',
  options: [],
  multiSelect: false,
  allowFreeText: true,
};

describe('desk commands', () => {
  it("E10: hooks install at the desk shows the change to Claude Code's settings and writes nothing; with --yes it writes it; hooks remove takes it out", () => {
    const tmp = makeTmpDir('desk-hooks-');
    const before = process.env.CLAUDE_CONFIG_DIR;
    process.env.CLAUDE_CONFIG_DIR = path.join(tmp.dir, '.claude');
    const settings = path.join(tmp.dir, '.claude', 'settings.json');
    try {
      const machine = { hookSocket: path.join(tmp.dir, 'hooks.sock') } as MachineHandle;
      const shown = runDeskLine(machine, 'hooks install');
      expect(shown[0]).toBe(`hooks: this change to ${settings}:`);
      expect(shown.at(-1)).toBe('write it with: hooks install --yes');
      expect(existsSync(settings)).toBe(false);
      expect(runDeskLine(machine, 'hooks install --yes').at(-1)).toBe('hooks: installed');
      expect(readFileSync(settings, 'utf8')).toContain(machine.hookSocket!);
      expect(runDeskLine(machine, 'hooks install')).toEqual([
        `hooks: already installed in ${settings}; nothing to change`,
      ]);
      expect(runDeskLine(machine, 'hooks remove --yes').at(-1)).toBe('hooks: removed');
      expect(JSON.parse(readFileSync(settings, 'utf8'))).toEqual({});
      expect(parseDeskLine('hooks')).toMatchObject({ ok: false, code: 'desk-missing-argument' });
    } finally {
      if (before === undefined) delete process.env.CLAUDE_CONFIG_DIR;
      else process.env.CLAUDE_CONFIG_DIR = before;
      tmp.cleanup();
    }
  });

  it('E6: parses phones and revoke-phone <phoneId>; revoke-phone without an id says which argument is missing', () => {
    expect(parseDeskLine('phones')).toEqual({ ok: true, command: { kind: 'phones' } });
    expect(parseDeskLine('revoke-phone 7c9e')).toEqual({
      ok: true,
      command: { kind: 'revoke-phone', id: '7c9e' },
    });
    expect(parseDeskLine('revoke-phone')).toMatchObject({
      ok: false,
      code: 'desk-missing-argument',
      message: 'revoke-phone: which phone? revoke-phone <phoneId> (see: phones) (try: help)',
    });
  });

  it('E2: parses rules and revoke <ruleId>; revoke without an id says which argument is missing', () => {
    expect(parseDeskLine('rules')).toEqual({ ok: true, command: { kind: 'rules' } });
    expect(parseDeskLine('revoke 5b0e')).toEqual({
      ok: true,
      command: { kind: 'revoke', id: '5b0e' },
    });
    expect(parseDeskLine('revoke')).toMatchObject({
      ok: false,
      code: 'desk-missing-argument',
      message: 'revoke: which rule? revoke <ruleId> (see: rules) (try: help)',
    });
  });

  it('parses allow, deny, answer, list, sessions, help', () => {
    expect(parseDeskLine('allow ab12')).toEqual({
      ok: true,
      command: { kind: 'allow', id: 'ab12' },
    });
    expect(parseDeskLine('  DENY ab12 ')).toEqual({
      ok: true,
      command: { kind: 'deny', id: 'ab12' },
    });
    expect(parseDeskLine('answer cd34 because  it is')).toEqual({
      ok: true,
      command: { kind: 'answer', id: 'cd34', text: 'because  it is' },
    });
    expect(parseDeskLine('list')).toEqual({ ok: true, command: { kind: 'list' } });
    expect(parseDeskLine('')).toBeNull();
    expect(parseDeskLine('allow')).toMatchObject({ ok: false, code: 'desk-missing-argument' });
    expect(parseDeskLine('answer x')).toMatchObject({ ok: false, code: 'desk-missing-argument' });
    expect(parseDeskLine('approve x')).toMatchObject({ ok: false, code: 'desk-unknown-command' });
  });

  it('ids: any unique prefix', () => {
    expect(resolveId('ab', ['abc', 'xyz'])).toEqual({ ok: true, id: 'abc' });
    expect(resolveId('a', ['abc', 'abd'])).toMatchObject({ ok: false });
    expect(resolveId('q', ['abc'])).toMatchObject({ ok: false });
  });

  it('answers: option ids or labels; several for multi-select; free text where allowed; items split by ;', () => {
    expect(parseAnswer([single], '2')).toEqual({
      ok: true,
      answers: [{ itemId: 'q1', optionIds: ['2'] }],
    });
    expect(parseAnswer([single], 'red')).toEqual({
      ok: true,
      answers: [{ itemId: 'q1', optionIds: ['1'] }],
    });
    expect(parseAnswer([single], '1 2')).toMatchObject({ ok: false });
    expect(parseAnswer([multi], '1, 2')).toEqual({
      ok: true,
      answers: [{ itemId: 'q2', optionIds: ['1', '2'] }],
    });
    expect(parseAnswer([text], 'it is late')).toEqual({
      ok: true,
      answers: [{ itemId: 'q3', optionIds: [], freeText: 'it is late' }],
    });
    expect(parseAnswer([single], 'green')).toMatchObject({ ok: false });
    expect(parseAnswer([single, text], '1; because')).toEqual({
      ok: true,
      answers: [
        { itemId: 'q1', optionIds: ['1'] },
        { itemId: 'q3', optionIds: [], freeText: 'because' },
      ],
    });
    expect(parseAnswer([single, text], '1')).toMatchObject({ ok: false });
  });
});
