import { readdirSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Gemini CLI (0.61, pinned in agents/) keeps a conversation in
// <home>/.gemini/tmp/<project>/chats/session-<UTC minute>-<first 8 of its id>.jsonl. A process
// that loads the conversation records into the name of the *current* minute before it reads the
// file; in the minute the conversation began that is the same file, and the record it appends
// (`$set messages`) replaces the history: the load fails ("Internal error") and the agent forgets.
// So before a load, a file of this conversation named for the current minute gets a name of its
// own. Gemini finds a conversation by the `session-` prefix and the `-<id>.jsonl` ending only,
// and keeps writing to the file it loaded, so nothing else changes.

const PREFIX = 'session-';

/** The UTC minute as Gemini writes it in a file name: 2026-12-07T22-34. */
export const geminiMinute = (at: Date): string => at.toISOString().slice(0, 16).replace(/:/g, '-');

/** Where Gemini keeps its per-project folders, as Gemini finds its home. */
export function geminiTmpDir(env: NodeJS.ProcessEnv): string {
  const home = env.GEMINI_CLI_HOME || env.HOME || os.homedir();
  return path.join(home, '.gemini', 'tmp');
}

/**
 * Renames this conversation's file named for `at`'s minute (`session-<minute>-<id8>.jsonl`) to
 * `session-<minute>-kept<n>-<id8>.jsonl`, n the first free number (a second load in the same
 * minute must not replace the first one's kept file); returns the new paths. Nothing found,
 * nothing done.
 */
export function keepGeminiHistory(
  sessionId: string,
  env: NodeJS.ProcessEnv,
  at = new Date(),
): string[] {
  const short = sessionId.slice(0, 8);
  const minute = geminiMinute(at);
  const clashing = `${PREFIX}${minute}-${short}.jsonl`;
  const tmp = geminiTmpDir(env);
  const kept: string[] = [];
  for (const project of readdirOrEmpty(tmp)) {
    const chats = path.join(tmp, project, 'chats');
    const names = readdirOrEmpty(chats);
    if (!names.includes(clashing)) continue;
    let n = 1;
    while (names.includes(`${PREFIX}${minute}-kept${n}-${short}.jsonl`)) n += 1;
    const to = path.join(chats, `${PREFIX}${minute}-kept${n}-${short}.jsonl`);
    // rename(2) is atomic: the file is under one name or the other, never neither.
    renameSync(path.join(chats, clashing), to);
    kept.push(to);
  }
  return kept;
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
