import { describe, expect, it } from 'vitest';
import { DESK_NEWS_LINE, deskLog } from '../log.ts';
import { DESK_PROMPT, makeTerminal } from './terminal.ts';
import { captureStream, TERMINAL_CONTROL, typedInput } from '../test-support/terminal-capture.ts';
import { until } from '../../testkit/until.ts';

const OSC52 = '\u001b]52;c;ZWNobyBldmls\u0007';

describe('U5: the desk terminal never breaks into what the user is typing', () => {
  it('U5: a line printed mid-typing goes above the prompt, then the prompt and the typed text are drawn again; the typed line stays whole', async () => {
    const input = typedInput({ tty: true });
    const out = captureStream({ tty: true });
    const t = makeTerminal({ input, output: out.stream, interactive: true });
    const lines: string[] = [];
    t.start((l) => lines.push(l));
    input.write('allow 3f2');
    await until(() => out.text().endsWith('allow 3f2'), 'the typed text echoed');
    const mark = out.text().length;
    t.print(`!! relay error limit: ${OSC52}slow down`);
    const printed = out.since(mark);
    // Lift the typed line (to column 1, clear below), the text, then prompt + typed text again.
    expect(printed.startsWith('\u001b[1G\u001b[0J!! relay error limit: slow down\n')).toBe(true);
    expect(printed).toContain(`${DESK_PROMPT}allow 3f2`);
    expect(printed.indexOf(`${DESK_PROMPT}allow 3f2`)).toBeGreaterThan(
      printed.indexOf('slow down\n'),
    );
    // H5: the outside text lost its escape sequence (the terminal's own cursor moves remain).
    expect(printed.replace(/\u001b\[\d*[GJ]/g, '')).not.toMatch(TERMINAL_CONTROL);
    input.write('a91c0\r');
    await until(() => lines.length === 1, 'the line');
    expect(lines).toEqual(['allow 3f2a91c0']);
    t.close();
  });

  it('U5: a line wrapped over several rows is lifted whole', async () => {
    const input = typedInput({ tty: true });
    const out = captureStream({ tty: true, columns: 20 });
    const t = makeTerminal({ input, output: out.stream, interactive: true });
    t.start(() => undefined);
    input.write('answer 7c1d this answer is long');
    await until(() => out.text().includes('long'), 'the typed text echoed');
    const mark = out.since(0).length;
    t.print('a desk event');
    // 6 + 31 characters on 20 columns: the cursor is on the second row, so one row up first.
    expect(out.since(mark).startsWith('\u001b[1A\u001b[1G\u001b[0Ja desk event\n\n')).toBe(true);
    t.close();
  });

  it('not interactive (a pipe): plain lines, no prompt, no cursor moves; still terminal-safe', () => {
    const input = typedInput();
    const out = captureStream();
    const t = makeTerminal({ input, output: out.stream, interactive: false });
    t.start(() => undefined);
    t.print(`one${OSC52}\ntwo`);
    expect(out.text()).toBe('one\ntwo\n');
    t.close();
  });
});

describe('U5: the desk log is quiet by default, --verbose shows the rest', () => {
  const lines = [
    ['info', 'relay-connected', 'connected to ws://x'],
    ['info', 'phone-presence', 'a phone joined'],
    ['warn', 'relay-disconnected', 'lost the relay; reconnecting'],
    ['warn', 'replayed-request', 'dispatch.request 1234 refused'],
    ['error', 'relay-unreachable', 'cannot reach the relay'],
    ['info', 'phone-registered', 'new phone "Pixel 7 · Chrome" 1a2b-3c4d (approved)'],
    [
      'warn',
      'phone-pending',
      'New phone "iPhone" 5e6f-7a8b asks to join — phones approve 0badc0de',
    ],
  ] as const;
  const shown = (verbose: boolean) => {
    const printed: string[] = [];
    const log = deskLog((l) => printed.push(l), { verbose });
    for (const [level, code, message] of lines) log(level, code, message);
    return printed.map((l) => l.replace(/^\S+ /, ''));
  };

  it("U5 + E9.9: quiet: errors, warnings but the relay's and phones' comings and goings, and every new phone — the one approved and the one asking to join with its approve command", () => {
    expect(shown(false)).toEqual([
      'warn  replayed-request: dispatch.request 1234 refused',
      'error relay-unreachable: cannot reach the relay',
      'info  phone-registered: new phone "Pixel 7 · Chrome" 1a2b-3c4d (approved)',
      'warn  phone-pending: New phone "iPhone" 5e6f-7a8b asks to join — phones approve 0badc0de',
    ]);
    // The same lines pass npm start's filter of the machine's output.
    const quietStart = shown(true).filter((l) => DESK_NEWS_LINE.test(`2026-12-07T00:00:00Z ${l}`));
    expect(quietStart).toHaveLength(2);
  });

  it('U5: --verbose: every line', () => {
    expect(shown(true)).toHaveLength(lines.length);
  });
});
