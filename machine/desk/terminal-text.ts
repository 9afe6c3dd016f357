// H5: text that did not come from the machine itself (relay errors, phone prompts and answers,
// session titles, question labels, device and tool messages) must never drive the terminal. A
// relay or a phone could otherwise clear the screen, hide text (SGR 8), retitle the window or
// write the clipboard (OSC 52). Everything the terminal prints from outside goes through
// `terminalSafe`: escape sequences are removed whole, other control characters are replaced.

/** ESC-introduced string sequences (OSC, DCS, SOS, PM, APC), up to BEL or ST, or to the end. */
const ESC_STRING = /\u001b[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|\u009c|$)/g;
/** The same sequences introduced by their 8-bit C1 code points. */
const C1_STRING = /[\u0090\u0098\u009d\u009e\u009f][\s\S]*?(?:\u0007|\u001b\\|\u009c|$)/g;
/** CSI (ESC [ or 8-bit U+009B): parameters, intermediates, one final byte. */
const CSI = /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?/g;
/** Any other escape sequence: ESC, intermediates, one final byte. */
const ESC_OTHER = /\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;
/** C0 (but tab and newline), DEL, C1, and the bidirectional overrides that reorder a line. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const CONTROLS_AND_BREAKS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export const REPLACEMENT = '\uFFFD';

/**
 * Text safe to print: no escape sequence survives and every other control character becomes
 * U+FFFD, so a reader can still tell something was there. `multiline` keeps newlines and tabs
 * (a command's output); otherwise they become spaces too (a title, a log message, one line).
 */
export function terminalSafe(text: string, options: { multiline?: boolean } = {}): string {
  const stripped = text
    .replace(ESC_STRING, '')
    .replace(C1_STRING, '')
    .replace(CSI, '')
    .replace(ESC_OTHER, '')
    .replace(/\r\n?/g, '\n');
  return options.multiline === true
    ? stripped.replace(CONTROLS, REPLACEMENT)
    : stripped.replace(/[\n\t]/g, ' ').replace(CONTROLS_AND_BREAKS, REPLACEMENT);
}
