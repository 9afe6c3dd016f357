import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { AgentCheck } from '../agent.ts';
import { executable, onPath } from '../on-path.ts';

// Which `claude` runs (E10): `--claude-path` when given, else `claude` on PATH (the user's own
// install, with their login), else the one packaged with the SDK (@anthropic-ai/claude-agent-sdk-
// <platform>-<arch>, an optional npm package that may be left out).

export type ClaudeBinary = { ok: true; path: string; how: string } | { ok: false; message: string };

const VERSION_TIMEOUT_MS = 15_000;

function packaged(): string | null {
  const require = createRequire(import.meta.url);
  const base = `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}`;
  for (const name of [base, `${base}-musl`]) {
    try {
      const file = path.join(path.dirname(require.resolve(`${name}/package.json`)), 'claude');
      if (executable(file)) return file;
    } catch {
      // not installed (optional)
    }
  }
  return null;
}

export function resolveClaude(
  claudePath: string | undefined,
  envPath: string | undefined,
): ClaudeBinary {
  if (claudePath !== undefined) {
    const file = path.resolve(claudePath);
    return executable(file)
      ? { ok: true, path: file, how: '--claude-path' }
      : { ok: false, message: `claude: --claude-path ${file} is not an executable file` };
  }
  const found = onPath('claude', envPath);
  if (found !== null) return { ok: true, path: found, how: 'PATH' };
  const bundled = packaged();
  if (bundled !== null) return { ok: true, path: bundled, how: 'the packaged CLI' };
  return { ok: false, message: 'claude: not found — install Claude Code or pass --claude-path' };
}

/** Runs `<claude> --version`: a binary that cannot start is said now, not at the first dispatch. */
export function checkClaude(bin: ClaudeBinary): Promise<AgentCheck> {
  if (!bin.ok) return Promise.resolve({ ok: false, message: bin.message });
  return new Promise((resolve) => {
    execFile(bin.path, ['--version'], { timeout: VERSION_TIMEOUT_MS }, (err, stdout) => {
      resolve(
        err === null
          ? { ok: true, detail: `${stdout.trim()} (${bin.path}, from ${bin.how})` }
          : { ok: false, message: `claude: ${bin.path} does not start: ${err.message}` },
      );
    });
  });
}
