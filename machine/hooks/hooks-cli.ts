import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import {
  applySettings,
  hookCommand,
  planSettings,
  settingsFile,
  SettingsError,
  type SettingsPlan,
} from './claude-settings.ts';
import { hookSocketPath } from './hook-socket.ts';

// E10: `npm run machine -- hooks install|remove [--yes] [--state-dir <dir>]` — adds or removes
// our hook entries in the user's Claude Code settings, after showing the exact change and
// asking (`--yes` for scripts). The same at the desk: `hooks install` shows the change,
// `hooks install --yes` writes it.

export const HOOKS_HELP = `Usage: npm run machine -- hooks install|remove [--yes] [--state-dir <dir>]

Lets the phone see Claude Code sessions started in any terminal, and answer their permission
requests (the terminal can still answer; whichever is first wins). Writes our hook entries into
$CLAUDE_CONFIG_DIR/settings.json (default ~/.claude/settings.json), touching nothing else there.
  install      add the hooks (shows the change and asks first)
  remove       take exactly our hooks out again
  --yes        do not ask (scripts)
  --state-dir  the machine's state dir the hooks talk to (default: .data/machine, as the machine's)
`;

export type HooksAction = 'install' | 'remove';

/** The change `hooks install|remove` would make, or a clear error. */
export function planHooks(
  action: HooksAction,
  socketPath: string,
  env: NodeJS.ProcessEnv = process.env,
): { ok: true; plan: SettingsPlan } | { ok: false; code: string; message: string } {
  try {
    const command = action === 'install' ? hookCommand(socketPath) : null;
    return { ok: true, plan: planSettings(settingsFile(env), command) };
  } catch (e) {
    if (e instanceof SettingsError) return { ok: false, code: e.code, message: e.message };
    throw e;
  }
}

/** Writes a plan; the error as text when it could not. */
export function applyHooks(plan: SettingsPlan): string | null {
  try {
    applySettings(plan);
    return null;
  } catch (e) {
    if (e instanceof SettingsError) return `${e.message} [${e.code}]`;
    throw e;
  }
}

export function describePlan(action: HooksAction, plan: SettingsPlan): string {
  if (!plan.changes)
    return action === 'install'
      ? `hooks: already installed in ${plan.file}; nothing to change`
      : `hooks: none of ours in ${plan.file}; nothing to change`;
  return `hooks: this change to ${plan.file}:\n${plan.diff}`;
}

/** The command line's `hooks …`; returns the exit code. */
export async function runHooksCli(
  argv: readonly string[],
  io: {
    input: NodeJS.ReadableStream;
    output: NodeJS.WritableStream;
    errors: NodeJS.WritableStream;
    env?: NodeJS.ProcessEnv;
    /** The machine's default `--state-dir`. */
    defaultStateDir: string;
  },
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        yes: { type: 'boolean', short: 'y' },
        'state-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    io.errors.write(`machine hooks: ${(e as Error).message} [bad-args]\n${HOOKS_HELP}`);
    return 2;
  }
  const action = parsed.positionals[0];
  if (parsed.values.help === true) {
    io.output.write(HOOKS_HELP);
    return 0;
  }
  if ((action !== 'install' && action !== 'remove') || parsed.positionals.length !== 1) {
    io.errors.write(`machine hooks: say install or remove [bad-args]\n${HOOKS_HELP}`);
    return 2;
  }
  const planned = planHooks(
    action,
    hookSocketPath(parsed.values['state-dir'] ?? io.defaultStateDir),
    io.env,
  );
  if (!planned.ok) {
    io.errors.write(`machine hooks: ${planned.message} [${planned.code}]\n`);
    return 2;
  }
  io.output.write(`${describePlan(action, planned.plan)}\n`);
  if (!planned.plan.changes) return 0;
  if (parsed.values.yes !== true) {
    const rl = createInterface({ input: io.input, output: io.output, terminal: false });
    const answer = await rl.question('Write this change? [y/N] ');
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      io.output.write('hooks: nothing written\n');
      return 1;
    }
  }
  const failed = applyHooks(planned.plan);
  if (failed !== null) {
    io.errors.write(`machine hooks: ${failed}\n`);
    return 2;
  }
  io.output.write(
    action === 'install'
      ? 'hooks: installed. Claude Code sessions started from now on appear on the phone while the machine runs.\n'
      : 'hooks: removed.\n',
  );
  return 0;
}
