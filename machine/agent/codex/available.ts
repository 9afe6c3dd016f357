import { execFile } from 'node:child_process';
import { packagedCodex } from './session.ts';

// Is Codex there? The machine asks once at start (E10 `capabilities.agents`): the version when
// the binary runs, or a plain sentence saying what is missing.

const VERSION_TIMEOUT_MS = 15_000;

export type CodexCheck = { ok: true; detail: string } | { ok: false; message: string };

export function checkCodex(codexPath?: string, env?: NodeJS.ProcessEnv): Promise<CodexCheck> {
  let bin: { command: string; args: string[] };
  try {
    bin = codexPath !== undefined ? { command: codexPath, args: [] } : packagedCodex();
  } catch {
    return Promise.resolve({
      ok: false,
      message: 'codex: not found — install @openai/codex or pass --codex-path',
    });
  }
  return new Promise((resolve) => {
    execFile(
      bin.command,
      [...bin.args, '--version'],
      { env: env ?? process.env, timeout: VERSION_TIMEOUT_MS },
      (err, stdout) => {
        const version = /\d+\.\d+\.\d+\S*/.exec(stdout)?.[0];
        if (err === null && version !== undefined)
          resolve({ ok: true, detail: `codex ${version}` });
        else
          resolve({
            ok: false,
            message: `codex: ${bin.command} did not run (${err?.message.split('\n')[0] ?? 'no version'}) — install @openai/codex or pass --codex-path`,
          });
      },
    );
  });
}
