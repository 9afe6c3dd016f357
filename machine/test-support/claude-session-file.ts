// Lines of Claude Code's own session file (JSON Lines, as the CLI writes them under
// ~/.claude/projects/), for the tests of the desk-session transcript reader.

const jsonLine = (value: object) => `${JSON.stringify(value)}\n`;

/** The person's prompt. */
export const userLine = (text: string) =>
  jsonLine({ type: 'user', message: { role: 'user', content: text } });

/** Claude's text. */
export const saidLine = (text: string) =>
  jsonLine({
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'text', text }] },
  });

/** A Bash tool call. */
export const callLine = (id: string, command: string) =>
  jsonLine({
    type: 'assistant',
    message: { content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] },
  });

/** The result of the call `id`. */
export const resultLine = (id: string, text: string) =>
  jsonLine({
    type: 'user',
    message: { content: [{ type: 'tool_result', tool_use_id: id, content: text }] },
  });
