import { execFile } from 'node:child_process';
import type { AgentBinary } from '../find-binary.ts';

// Is Codex there? The machine asks once at start (E10 `capabilities.agents`): the version when
// the binary runs, or a plain sentence saying what is missing (E10 packaging: binary.ts found it,
// or names the three ways to get one).

const VERSION_TIMEOUT_MS = 15_000;

export type CodexCheck = { ok: true; detail: string } | { ok: false; message: string };

export function checkCodex(bin: AgentBinary, env?: NodeJS.ProcessEnv): Promise<CodexCheck> {
  if (!bin.ok) return Promise.resolve({ ok: false, message: bin.message });
  const { command, args } = bin.launch;
  const where = args.at(-1) ?? command;
  return new Promise((resolve) => {
    execFile(
      command,
      [...args, '--version'],
      { env: env ?? process.env, timeout: VERSION_TIMEOUT_MS },
      (err, stdout) => {
        const version = /\d+\.\d+\.\d+\S*/.exec(stdout)?.[0];
        if (err === null && version !== undefined)
          resolve({ ok: true, detail: `codex ${version} (${where}, from ${bin.how})` });
        else
          resolve({
            ok: false,
            message: `codex: ${where} did not run (${err?.message.split('\n')[0] ?? 'no version'})`,
          });
      },
    );
  });
}
