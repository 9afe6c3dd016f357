import { describe, expect, it } from 'vitest';
import { terminalQr, wantsColour } from './terminal-qr.ts';

const SGR = /\x1b\[[0-9;]*m/g;

describe('terminal QR code', () => {
  it('pins bright-white-on-black colours on every line, so a light terminal theme does not invert the code', async () => {
    const plain = await terminalQr('dsh1.example-pairing-code', false);
    const coloured = await terminalQr('dsh1.example-pairing-code', true);
    const lines = coloured.split('\n').filter((l) => l.length > 0);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line).toMatch(/^\x1b\[97;40m[ ▀▄█]+\x1b\[0m$/);
    expect(coloured.replace(SGR, '')).toBe(plain);
  });

  it('honours NO_COLOR and FORCE_COLOR, and pins colours on a TTY otherwise', () => {
    expect(wantsColour({}, true)).toBe(true);
    expect(wantsColour({}, false)).toBe(false);
    expect(wantsColour({ NO_COLOR: '1' }, true)).toBe(false);
    expect(wantsColour({ NO_COLOR: '' }, true)).toBe(true);
    expect(wantsColour({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(wantsColour({ FORCE_COLOR: '0' }, true)).toBe(true);
    expect(wantsColour({ FORCE_COLOR: '0', NO_COLOR: '1' }, true)).toBe(false);
  });
});
