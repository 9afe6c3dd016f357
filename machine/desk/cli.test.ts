import { describe, expect, it } from 'vitest';
import { DEFAULT_APP_URL, HELP_TEXT, parseCli } from './cli.ts';

describe('CLI', () => {
  it('parses every option; --root repeats', () => {
    const r = parseCli([
      '--relay',
      'ws://127.0.0.1:8787',
      '--name',
      'laptop',
      '--root',
      '/a',
      '--root',
      '~/b',
      '--state-dir',
      '/s',
      '--app-url',
      'http://x:1/',
      '--allow-full-access',
      '--require-presence',
      'risky',
      '--re-pair',
      '--push-answer-window-ms',
      '2500',
      '--agent',
      'claude',
      '--agent',
      'mock',
      '--agent',
      'claude',
      '--claude-path',
      '/opt/claude',
      '--codex-path',
      '/opt/codex',
    ]);
    expect(r).toEqual({
      ok: true,
      help: false,
      options: {
        relay: 'ws://127.0.0.1:8787',
        name: 'laptop',
        roots: ['/a', '~/b'],
        stateDir: '/s',
        appUrl: 'http://x:1',
        allowFullAccess: true,
        requirePresence: 'risky',
        rePair: true,
        verbose: false,
        pushAnswerWindowMs: 2500,
        // E10: in order, no repeats; the first is the default.
        agents: ['claude', 'mock'],
        claudePath: '/opt/claude',
        codexPath: '/opt/codex',
        acpAgents: [],
      },
    });
  });

  it('E10: --acp-agent declares an ACP agent by name and command line; a bad one is refused with bad-acp-agent', () => {
    const r = parseCli([
      '--relay',
      'ws://x',
      '--agent',
      'gemini',
      '--gemini-path',
      '/opt/gemini',
      '--acp-agent',
      'claude-acp=/opt/bin/claude-agent-acp --verbose',
    ]);
    expect(r.ok && !r.help && r.options).toMatchObject({
      agents: ['gemini'],
      geminiPath: '/opt/gemini',
      acpAgents: [
        { name: 'claude-acp', command: '/opt/bin/claude-agent-acp', args: ['--verbose'] },
      ],
    });
    expect(parseCli(['--relay', 'ws://x', '--acp-agent', 'nocommand'])).toEqual({
      ok: false,
      code: 'bad-acp-agent',
      message: '--acp-agent must be name=command [args…]: "nocommand"',
    });
    expect(parseCli(['--relay', 'ws://x', '--acp-agent', 'gemini=/bin/true'])).toEqual({
      ok: false,
      code: 'bad-acp-agent',
      message: '--acp-agent: gemini is built in; give the declared agent another name',
    });
    expect(
      parseCli(['--relay', 'ws://x', '--acp-agent', 'a=/bin/x', '--acp-agent', 'a=/bin/y']),
    ).toMatchObject({ ok: false, code: 'bad-acp-agent' });
  });

  it('E10: no --agent means the scripted one; an unknown agent is refused with bad-agent', () => {
    const none = parseCli(['--relay', 'ws://x']);
    expect(none.ok && !none.help && none.options.agents).toEqual(['mock']);
    expect(parseCli(['--relay', 'ws://x', '--agent', 'gpt'])).toEqual({
      ok: false,
      code: 'bad-agent',
      message: '--agent must be mock, claude, codex or gemini: gpt',
    });
  });

  it('defaults: no roots (dispatch off), full access refused, app url 127.0.0.1:4173', () => {
    const r = parseCli(['--relay', 'wss://relay.example']);
    expect(r).toMatchObject({
      ok: true,
      options: {
        roots: [],
        allowFullAccess: false,
        requirePresence: 'none',
        rePair: false,
        appUrl: DEFAULT_APP_URL,
      },
    });
    expect(DEFAULT_APP_URL).toBe('http://127.0.0.1:4173');
  });

  it('--help lists all options', () => {
    expect(parseCli(['--help'])).toEqual({ ok: true, help: true });
    for (const o of [
      '--relay',
      '--name',
      '--root',
      '--state-dir',
      '--app-url',
      '--allow-full-access',
      '--require-presence',
      '--re-pair',
      '--push-answer-window-ms',
      '--device-lane-port',
      '--device',
      '--verbose',
      '--help',
    ]) {
      expect(HELP_TEXT).toContain(o);
    }
  });

  it.each([
    [[], 'missing-relay'],
    [['--relay', 'http://x'], 'bad-relay-url'],
    [['--relay', 'ws://x', '--app-url', 'ftp://x'], 'bad-app-url'],
    [['--relay', 'ws://x', '--bogus'], 'bad-args'],
    [['--relay', 'ws://x', '--require-presence', 'some'], 'bad-require-presence'],
    [['--relay', 'ws://x', '--require-presence', ''], 'bad-require-presence'],
    [['--relay'], 'bad-args'],
    [['--relay', 'ws://x', '--push-answer-window-ms', '0'], 'bad-push-answer-window'],
    [['--relay', 'ws://x', '--push-answer-window-ms', '1.5'], 'bad-push-answer-window'],
    [['--relay', 'ws://x', '--push-answer-window-ms', 'soon'], 'bad-push-answer-window'],
    [['--relay', 'ws://x', '--device', 'dev_1'], 'bad-device'],
    [['--relay', 'ws://x', '--device-lane-port', '0', '--device', 'a b'], 'bad-device'],
  ])('%j → %s', (argv, code) => {
    expect(parseCli(argv)).toMatchObject({ ok: false, code });
  });
});
