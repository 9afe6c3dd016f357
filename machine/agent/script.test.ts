import { describe, expect, it } from 'vitest';
import { parseScript } from './script.ts';

describe('scripted agent: the script language (docs/mock-agent.md)', () => {
  it('parses every directive', () => {
    const r = parseScript(
      [
        'say: hello',
        'run: echo hi',
        'read: README.md',
        'list:',
        'write: notes/a.txt',
        'line one',
        '\\run: not a directive',
        '',
        'ask: Pick one | A | B',
        'ask-multi: Pick some | A | B | C',
        'ask-text: Anything else?',
        '# a comment',
        'sleep: 5',
        'fail: boom',
        'close:',
      ].join('\n'),
    );
    expect(r).toEqual({
      ok: true,
      script: true,
      steps: [
        { kind: 'say', text: 'hello' },
        { kind: 'run', command: 'echo hi' },
        { kind: 'read', path: 'README.md' },
        { kind: 'list', path: '.' },
        { kind: 'write', path: 'notes/a.txt', text: 'line one\nrun: not a directive\n' },
        {
          kind: 'ask',
          prompt: 'Pick one',
          options: ['A', 'B'],
          multiSelect: false,
          allowFreeText: false,
        },
        {
          kind: 'ask',
          prompt: 'Pick some',
          options: ['A', 'B', 'C'],
          multiSelect: true,
          allowFreeText: false,
        },
        {
          kind: 'ask',
          prompt: 'Anything else?',
          options: [],
          multiSelect: false,
          allowFreeText: true,
        },
        { kind: 'sleep', ms: 5 },
        { kind: 'fail', message: 'boom' },
        { kind: 'close' },
      ],
    });
  });

  it('any other prompt is not a script (runs the default demo)', () => {
    expect(parseScript('please fix the tests')).toEqual({ ok: true, script: false });
    expect(parseScript('http://example.com: look')).toEqual({ ok: true, script: false });
  });

  it.each([
    ['say: a\nnonsense here', 2, 'not a directive'],
    ['run:', 1, 'needs a command'],
    ['ask: one option | A', 1, 'at least two options'],
    ['sleep: 99999999', 1, 'sleep'],
    ['sleep: -1', 1, 'sleep'],
  ])('bad script %j → script-syntax at line %d', (src, line, text) => {
    const r = parseScript(src);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe('script-syntax');
    expect(r.line).toBe(line);
    expect(r.message).toContain(text);
  });
});
