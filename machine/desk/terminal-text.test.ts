import { describe, expect, it } from 'vitest';
import { REPLACEMENT, terminalSafe } from './terminal-text.ts';
import { TERMINAL_CONTROL } from '../test-support/terminal-capture.ts';

// H5: the sequences an outside party used to drive the machine's terminal.
const CLEAR_SCREEN = '\u001b[2J\u001b[H';
const HIDDEN = '\u001b[8m';
const RESET = '\u001b[0m';
const TITLE_BEL = '\u001b]0;pwned\u0007';
const TITLE_ST = '\u001b]2;pwned\u001b\\';
const OSC52 = '\u001b]52;c;ZWNobyBldmls\u0007';
const DCS = '\u001bPq#0;2;0;0;0#1~~@@vv@@~~$\u001b\\';
const C1_CSI = '\u009b2J';
const C1_OSC = '\u009d0;pwned\u009c';

describe('H5: outside text is made terminal-safe', () => {
  it.each([
    ['clear-screen', `a${CLEAR_SCREEN}b`, 'ab'],
    ['hidden text (SGR 8)', `shown ${HIDDEN}secret${RESET} shown`, 'shown secret shown'],
    ['a window title (OSC 0, BEL)', `x${TITLE_BEL}y`, 'xy'],
    ['a window title (OSC 2, ST)', `x${TITLE_ST}y`, 'xy'],
    ['an OSC 52 clipboard write', `copy${OSC52}me`, 'copyme'],
    ['a DCS (sixel) string', `a${DCS}b`, 'ab'],
    ['8-bit CSI and OSC', `a${C1_CSI}b${C1_OSC}c`, 'abc'],
    ['an unterminated OSC swallows the rest', `ok\u001b]52;c;ZXZpbA==`, 'ok'],
    ['a lone ESC and other C0', `a\u001b\u0000\u0008\u007fb`, `a${REPLACEMENT.repeat(3)}b`],
    ['bidi overrides', 'abc\u202edcba\u202c', `abc${REPLACEMENT}dcba${REPLACEMENT}`],
  ])('H5: %s', (_what, input, expected) => {
    const out = terminalSafe(input);
    expect(out).toBe(expected);
    expect(out).not.toMatch(TERMINAL_CONTROL);
  });

  it('H5: one line by default (newlines, CR, tabs become spaces); `multiline` keeps newlines and tabs, never a bare CR', () => {
    expect(terminalSafe('a\nb\r\nc\rd\te')).toBe('a b c d e');
    expect(terminalSafe('a\nb\r\nc\rd\te', { multiline: true })).toBe('a\nb\nc\nd\te');
  });

  it('H5: ordinary text, CJK and emoji pass unchanged', () => {
    const text = 'Run: npm test — 测试 ✓ 🚀 [brackets] ~/code';
    expect(terminalSafe(text)).toBe(text);
  });
});
