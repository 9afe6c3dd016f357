import { mkdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { writeFileAtomic } from '../atomic-file.ts';

// E10 (desk sessions): our entries in the user's Claude Code settings. Install adds one hook per
// event we listen to, remove takes exactly those out; nothing else in the file changes (every
// other key, every other hook, their order). A file that is not a JSON object — or whose `hooks`
// is not shaped as Claude Code reads it — is refused with a clear error and never overwritten.
// Writes are atomic: a temp file in the same folder, fsync, rename.

/** The hook program's file name; it also marks our entries (remove finds them by it). */
export const HOOK_PROGRAM_NAME = 'dsh-dispatch-hook.mjs';
export const HOOK_PROGRAM = path.join(import.meta.dirname, HOOK_PROGRAM_NAME);

/**
 * The events we listen to. PermissionRequest waits for the phone; the rest only report (each
 * answers at once). PostToolUse / PostToolUseFailure and Interrupt tell the machine that the
 * terminal answered a request first (its card then closes).
 */
export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'Interrupt',
  'Stop',
  'SessionEnd',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/**
 * Claude Code's own limit on each hook run (seconds). PermissionRequest's is above the machine's
 * approval expiry (30 min) and the hook program's own bound, so our program always ends first.
 */
export const PERMISSION_HOOK_TIMEOUT_S = 1900;
export const REPORT_HOOK_TIMEOUT_S = 10;

export const SETTINGS_ERRORS = {
  'settings-malformed': 'settings-malformed',
  'settings-unreadable': 'settings-unreadable',
  'settings-write-failed': 'settings-write-failed',
} as const;
export type SettingsErrorCode = keyof typeof SETTINGS_ERRORS;
export class SettingsError extends Error {
  constructor(
    readonly code: SettingsErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`. */
export function settingsFile(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.CLAUDE_CONFIG_DIR ?? path.join(env.HOME ?? os.homedir(), '.claude');
  return path.join(dir, 'settings.json');
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The command Claude Code runs: this Node, our program, the machine's socket. */
export function hookCommand(socketPath: string, program = HOOK_PROGRAM): string {
  return [process.execPath, program, socketPath].map(shellQuote).join(' ');
}

type Json = Record<string, unknown>;
type HookEntry = { matcher?: string; hooks: Array<{ type: string; command?: string }> };

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const ours = (h: { command?: string }): boolean =>
  typeof h.command === 'string' && h.command.includes(HOOK_PROGRAM_NAME);

/** Parses the file's text (absent = `{}`); anything Claude Code would not read as settings throws. */
export function parseSettings(text: string | null, file: string): Json {
  if (text === null || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new SettingsError(
      'settings-malformed',
      `${file} is not valid JSON (${(e as Error).message}); fix it by hand first — it was not changed`,
    );
  }
  if (!isObject(parsed))
    throw new SettingsError(
      'settings-malformed',
      `${file} is not a JSON object; it was not changed`,
    );
  const hooks = parsed.hooks;
  if (hooks !== undefined) {
    if (!isObject(hooks))
      throw new SettingsError(
        'settings-malformed',
        `${file}: "hooks" is not an object; it was not changed`,
      );
    for (const [event, list] of Object.entries(hooks)) {
      if (!Array.isArray(list) || !list.every((e) => isObject(e) && Array.isArray(e.hooks)))
        throw new SettingsError(
          'settings-malformed',
          `${file}: hooks.${event} is not a list of {matcher?, hooks: [...]}; it was not changed`,
        );
    }
  }
  return parsed;
}

/** The settings without any of our entries (an event or `hooks` left empty by that is dropped). */
export function withoutOurs(settings: Json): Json {
  if (!isObject(settings.hooks)) return settings;
  const hooks: Json = {};
  let removed = false;
  for (const [event, list] of Object.entries(settings.hooks)) {
    const entries = list as HookEntry[];
    if (!entries.some((e) => e.hooks.some(ours))) {
      hooks[event] = list;
      continue;
    }
    removed = true;
    const kept = entries.flatMap((e) => {
      if (!e.hooks.some(ours)) return [e];
      const rest = e.hooks.filter((h) => !ours(h));
      return rest.length > 0 ? [{ ...e, hooks: rest }] : [];
    });
    if (kept.length > 0) hooks[event] = kept;
  }
  if (!removed) return settings;
  const next: Json = { ...settings, hooks };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return next;
}

/** The settings with exactly one entry of ours per event (an older one of ours is replaced). */
export function withOurs(settings: Json, command: string): Json {
  const base = withoutOurs(settings);
  const hooks: Json = isObject(base.hooks) ? { ...base.hooks } : {};
  for (const event of HOOK_EVENTS) {
    const timeout =
      event === 'PermissionRequest' ? PERMISSION_HOOK_TIMEOUT_S : REPORT_HOOK_TIMEOUT_S;
    const list = Array.isArray(hooks[event]) ? (hooks[event] as HookEntry[]) : [];
    hooks[event] = [...list, { hooks: [{ type: 'command', command, timeout }] }];
  }
  return { ...base, hooks };
}

const render = (settings: Json): string => `${JSON.stringify(settings, null, 2)}\n`;

export type SettingsPlan = {
  file: string;
  before: string | null;
  after: string;
  /** False when the file already says exactly this. */
  changes: boolean;
  /** A unified diff of the file as it is against the file as it will be. */
  diff: string;
};

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SettingsError('settings-unreadable', `cannot read ${file}: ${(e as Error).message}`);
  }
}

/** What install (`command` given) or remove (`null`) would write; nothing is written here. */
export function planSettings(file: string, command: string | null): SettingsPlan {
  const before = readText(file);
  const parsed = parseSettings(before, file);
  const next = command === null ? withoutOurs(parsed) : withOurs(parsed, command);
  // Unchanged content keeps its own formatting: nothing is rewritten for nothing.
  const changes = JSON.stringify(next) !== JSON.stringify(parsed);
  const after = changes ? render(next) : (before ?? '');
  const diff = changes
    ? createTwoFilesPatch(file, file, before ?? '', after, undefined, undefined, {
        context: 3,
      }).replace(/^=+\n/, '')
    : '';
  return { file, before, after, changes, diff };
}

/** Writes the plan atomically (temp file + fsync + rename), keeping the file's mode. */
export function applySettings(plan: SettingsPlan): void {
  if (!plan.changes) return;
  const dir = path.dirname(plan.file);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    let mode = 0o600;
    try {
      mode = statSync(plan.file).mode & 0o777;
    } catch {
      // a new file: owner-only
    }
    // The file changed since the plan was shown: refuse rather than write over someone's edit.
    if (readText(plan.file) !== plan.before)
      throw new SettingsError(
        'settings-write-failed',
        `${plan.file} changed while the change was being confirmed; run the command again`,
      );
    writeFileAtomic(plan.file, plan.after, mode);
  } catch (e) {
    if (e instanceof SettingsError) throw e;
    throw new SettingsError(
      'settings-write-failed',
      `cannot write ${plan.file}: ${(e as Error).message}`,
    );
  }
}
