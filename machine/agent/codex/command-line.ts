// Codex reports a command the way it will exec it: `/bin/bash -lc '<the command>'`. A card shows
// what the human would have typed, so the shell wrapper comes off when the rest is exactly one
// shell word (single- or double-quoted parts, backslash escapes); anything else is shown whole.

const WRAPPER = /^(?:\/usr)?(?:\/bin\/)?(?:ba|z|da)?sh -l?c (.+)$/s;

/** The one shell word `text` spells, or null when it is not exactly one word. */
export function singleWord(text: string): string | null {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return null;
      out += text.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= text.length) return null;
        const d = text[i]!;
        if (d === '"') break;
        // Inside double quotes a backslash escapes only these; `$` and backquotes would expand.
        if (d === '\\' && '$`"\\\n'.includes(text[i + 1] ?? '')) {
          out += text[i + 1];
          i += 2;
        } else if (d === '$' || d === '`') {
          return null;
        } else {
          out += d;
          i++;
        }
      }
      i++;
    } else if (c === '\\') {
      if (i + 1 >= text.length) return null;
      out += text[i + 1];
      i += 2;
    } else if (/[\s;&|<>()$`*?[\]{}~#]/.test(c)) {
      return null;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** `/bin/bash -lc 'npm test'` → `npm test`; any other command line unchanged. */
export function asTyped(command: string): string {
  const m = WRAPPER.exec(command.trim());
  if (m === null) return command;
  const inner = singleWord(m[1]!);
  return inner === null || inner.trim() === '' ? command : inner;
}
