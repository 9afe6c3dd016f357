import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { liveInGroup, signalGroup } from '../../testkit/process-group.ts';
import { until } from '../../testkit/until.ts';

// The REAL interactive `claude` at a terminal, for tests of what happens at the desk: a tmux
// server of its own (its own socket name), one window whose pty runs the CLI. The test types
// into it and reads the screen as a person would.

const run = promisify(execFile);
const SCREEN_POLL_MS = 100;
const DIALOG = /Do you want to proceed\?/;
/** The dialog's last line: drawn once every option is. */
const DIALOG_END = /Esc to cancel/;
const DIALOG_PRESSES = 5;
const DIALOG_ANSWER_MS = 3000;
/** How long Claude gets to end after its terminal closed, before its group is killed. */
const STOP_WAIT_MS = 5000;

export type ClaudePty = {
  screen(): Promise<string>;
  /** Types the text and presses Enter. */
  submit(text: string): Promise<void>;
  /** Presses keys as tmux names them (`1`, `Enter`, `Escape`). */
  keys(...keys: string[]): Promise<void>;
  waitForScreen(re: RegExp, what: string, timeoutMs?: number): Promise<string>;
  /**
   * Answers Claude's permission dialog with `key` as a person would: waits for the whole dialog,
   * presses, and presses again while the dialog is still up — under load a key pressed as the
   * dialog appeared was not taken (twice in five runs), and a person presses again then too.
   */
  answerDialog(key: string): Promise<void>;
  close(): void;
  /**
   * Closes the terminal and waits until Claude and its process group are gone: it writes into
   * its config folder to its end, so a folder removed before that may not be removed whole.
   */
  stop(): Promise<void>;
};

/** What a first start would ask (theme, API key, folder trust) is answered in the config. */
export function prepareClaudeConfig(configDir: string, cwd: string, apiKey: string): void {
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    path.join(configDir, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: 'dark',
      customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
      projects: { [cwd]: { hasTrustDialogAccepted: true, allowedTools: [] } },
    }),
  );
}

export function startClaudePty(o: {
  claude: string;
  cwd: string;
  env: Record<string, string>;
  args?: string[];
}): ClaudePty {
  const socket = `dsh-claude-${randomBytes(4).toString('hex')}`;
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args]);
  execFileSync('tmux', [
    '-L',
    socket,
    '-f',
    '/dev/null',
    'new-session',
    '-d',
    '-s',
    'desk',
    '-x',
    '160',
    '-y',
    '50',
    '-c',
    o.cwd,
    ...Object.entries(o.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    o.claude,
    ...(o.args ?? []),
  ]);
  // The pane's process is Claude itself, the leader of a process group of its own.
  const claudePid = Number(
    execFileSync('tmux', ['-L', socket, 'list-panes', '-t', 'desk', '-F', '#{pane_pid}'])
      .toString()
      .trim(),
  );
  const screen = async () => (await tmux('capture-pane', '-p', '-t', 'desk')).stdout;
  return {
    screen,
    async submit(text) {
      await tmux('send-keys', '-t', 'desk', '-l', text);
      await tmux('send-keys', '-t', 'desk', 'Enter');
    },
    async keys(...keys) {
      await tmux('send-keys', '-t', 'desk', ...keys);
    },
    async waitForScreen(re, what, timeoutMs = 30_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const text = await screen().catch(() => '');
        if (re.test(text)) return text;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}; screen:\n${text}`);
        await new Promise((r) => setTimeout(r, SCREEN_POLL_MS));
      }
    },
    async answerDialog(key) {
      await this.waitForScreen(DIALOG_END, "Claude's whole permission dialog");
      for (let press = 0; press < DIALOG_PRESSES; press += 1) {
        await tmux('send-keys', '-t', 'desk', key);
        const end = Date.now() + DIALOG_ANSWER_MS;
        while (Date.now() < end) {
          if (!DIALOG.test(await screen().catch(() => ''))) return;
          await new Promise((r) => setTimeout(r, SCREEN_POLL_MS));
        }
      }
      throw new Error(`Claude's dialog took no answer; screen:\n${await screen()}`);
    },
    close() {
      try {
        execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
      } catch {
        // already gone
      }
    },
    async stop() {
      this.close();
      const gone = () => liveInGroup(claudePid).length === 0;
      try {
        await until(gone, 'claude to end after its terminal closed', STOP_WAIT_MS);
      } catch {
        signalGroup(claudePid, 'SIGKILL');
        await until(gone, 'claude to end after SIGKILL', STOP_WAIT_MS);
      }
    },
  };
}
