import { realpath, stat } from 'node:fs/promises';
import { realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The cwd guard (spec: "dispatch.request.cwd is validated against configured allowed roots;
// violations return a visible dispatch.result{ok:false}, never a silent clamp"). Roots and cwds
// are compared after realpath, so a symlink inside a root cannot lead outside it.

export type RootsError = { code: 'root-not-found' | 'root-not-directory'; message: string };

export function expandHome(p: string, home = os.homedir()): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return p;
}

/** `--root` values → the allowedRoots the machine reports and enforces. */
export function resolveRoots(
  raw: readonly string[],
  base = process.cwd(),
): { ok: true; roots: string[] } | ({ ok: false } & RootsError) {
  const roots: string[] = [];
  for (const r of raw) {
    const abs = path.resolve(base, expandHome(r));
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      return { ok: false, code: 'root-not-found', message: `--root ${r}: ${abs} does not exist` };
    }
    if (!statSync(real).isDirectory()) {
      return { ok: false, code: 'root-not-directory', message: `--root ${r}: not a folder` };
    }
    if (!roots.includes(real)) roots.push(real);
  }
  return { ok: true, roots };
}

export type CwdCheck =
  | { ok: true; cwd: string }
  | { ok: false; reason: 'dispatch-disabled' | 'cwd-not-allowed'; message: string };

export function isInside(child: string, root: string): boolean {
  if (child === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return child.startsWith(prefix);
}

/** The most specific allowed root holding `folder`, if any: what E2's `always` rules key on. */
export function rootOf(folder: string, roots: readonly string[]): string | undefined {
  return roots
    .filter((r) => isInside(folder, r))
    .reduce<string | undefined>(
      (a, b) => (a === undefined || b.length > a.length ? b : a),
      undefined,
    );
}

export async function checkCwd(
  cwd: string | undefined,
  roots: readonly string[],
): Promise<CwdCheck> {
  if (roots.length === 0) {
    return {
      ok: false,
      reason: 'dispatch-disabled',
      message: 'dispatch is off on this machine: start it with --root <folder>',
    };
  }
  const wanted = cwd ?? roots[0]!;
  if (!path.isAbsolute(wanted)) {
    return {
      ok: false,
      reason: 'cwd-not-allowed',
      message: `cwd must be an absolute path: ${wanted}`,
    };
  }
  let real: string;
  try {
    real = await realpath(wanted);
  } catch {
    return { ok: false, reason: 'cwd-not-allowed', message: `cwd does not exist: ${wanted}` };
  }
  if (!roots.some((root) => isInside(real, root))) {
    return {
      ok: false,
      reason: 'cwd-not-allowed',
      message: `cwd is outside the allowed roots (${roots.join(', ')}): ${wanted}`,
    };
  }
  if (!(await stat(real)).isDirectory()) {
    return { ok: false, reason: 'cwd-not-allowed', message: `cwd is not a folder: ${wanted}` };
  }
  return { ok: true, cwd: real };
}
