import { writeFileSync } from 'node:fs';

// Turns the QR code the mock machine prints in its terminal into a video Chromium's fake camera
// plays (--use-file-for-fake-video-capture), so a test scans exactly what a person would point
// their phone at — not a code regenerated from the same string.

const WIDTH_PX = 640;
const HEIGHT_PX = 480;
const FRAMES = 2;
const LIGHT = 235;
const DARK = 16;

// qrcode-terminal's small mode draws two module rows per text row: a glyph's drawn half in the
// foreground colour, the rest in the background colour.
const GLYPH_HALVES: Record<string, [boolean, boolean]> = {
  '█': [true, true],
  '▀': [true, false],
  '▄': [false, true],
  ' ': [false, false],
};
const SGR = /\x1b\[[0-9;]*m/g;
const PINNED_WHITE_ON_BLACK = '\x1b[97;40m';

export type TerminalTheme = 'dark' | 'light';
export type TerminalQr = { modules: boolean[][]; backgroundLight: boolean };

/**
 * What a person sees of the QR code in `lines` (the machine's stdout) on a terminal of `theme`:
 * each module light or dark. Colours the machine pinned win over the theme's.
 */
export function parseTerminalQr(lines: readonly string[], theme: TerminalTheme): TerminalQr {
  const text = lines.map((l) => l.replace(SGR, ''));
  const start = text.findIndex((l) => /^▄{10,}$/.test(l));
  if (start < 0) throw new Error('no QR code in the machine output');
  const modules: boolean[][] = [];
  for (let i = start; i < text.length; i++) {
    const line = text[i]!;
    if (line.length === 0 || ![...line].every((c) => c in GLYPH_HALVES)) break;
    const pinned = lines[i]!.includes(PINNED_WHITE_ON_BLACK);
    const foregroundLight = pinned || theme === 'dark';
    const top: boolean[] = [];
    const bottom: boolean[] = [];
    for (const c of line) {
      const [t, b] = GLYPH_HALVES[c]!;
      top.push(t === foregroundLight);
      bottom.push(b === foregroundLight);
    }
    modules.push(top, bottom);
  }
  return { modules, backgroundLight: theme === 'light' };
}

/**
 * The code's side in the video, as a phone held at reading distance frames it: the code carries
 * a box key since E9, so it has more modules than a fixed 8 px each would fit there; the scanner
 * reads the whole camera frame (src/ui/qr-frames.ts), about 6 px a module here.
 */
const CODE_SIDE_PX = 400;

/**
 * Writes a Y4M (4:2:0) video of the code on its terminal's background, each module
 * `scale` pixels square (by default as many as fit CODE_SIDE_PX, at most 8) and centred.
 */
export function writeQrVideo(path: string, qr: TerminalQr, scale?: number): void {
  const { modules } = qr;
  const height = modules.length;
  const width = Math.max(...modules.map((r) => r.length));
  scale ??= Math.min(8, Math.floor(CODE_SIDE_PX / Math.max(width, height)));
  const left = Math.floor((WIDTH_PX - width * scale) / 2);
  const top = Math.floor((HEIGHT_PX - height * scale) / 2);
  if (left < 0 || top < 0) throw new Error(`QR of ${width}×${height} modules does not fit`);
  const luma = Buffer.alloc(WIDTH_PX * HEIGHT_PX, qr.backgroundLight ? LIGHT : DARK);
  for (let y = 0; y < height * scale; y++) {
    const row = modules[Math.floor(y / scale)]!;
    for (let x = 0; x < width * scale; x++) {
      luma[(top + y) * WIDTH_PX + left + x] = row[Math.floor(x / scale)] ? LIGHT : DARK;
    }
  }
  const chroma = Buffer.alloc((WIDTH_PX / 2) * (HEIGHT_PX / 2) * 2, 128);
  const header = Buffer.from(`YUV4MPEG2 W${WIDTH_PX} H${HEIGHT_PX} F10:1 Ip A1:1 C420jpeg\n`);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma]);
  writeFileSync(path, Buffer.concat([header, ...Array<Buffer>(FRAMES).fill(frame)]));
}
