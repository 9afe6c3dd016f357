import qrcode from 'qrcode-terminal';

// qrcode-terminal's compact mode draws light modules as block glyphs in the terminal's own
// foreground colour, which is right only on a dark theme: on a light one (macOS Terminal's
// default) the code comes out inverted and phone scanners, ours included, cannot read it. Pinning
// the colours (bright white glyphs on black) draws the same code correctly on every theme.
const PIN_COLOURS = '\x1b[97;40m';
const RESET = '\x1b[0m';

/** Whether to pin colours: a terminal that is not told NO_COLOR, or FORCE_COLOR set. */
export function wantsColour(env: NodeJS.ProcessEnv, isTty: boolean): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTty && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** The compact QR code of `text`, one string of lines, colours pinned when `colour`. */
export async function terminalQr(text: string, colour: boolean): Promise<string> {
  const plain = await new Promise<string>((resolve) =>
    qrcode.generate(text, { small: true }, resolve),
  );
  if (!colour) return plain;
  return plain
    .split('\n')
    .map((line) => (line.length > 0 ? `${PIN_COLOURS}${line}${RESET}` : line))
    .join('\n');
}
