// H7b: where the executor may create cgroups (cgroup v2, a child of its own cgroup — root, or a
// user whose systemd delegates its subtree), each command runs in a cgroup of its own. A process
// cannot leave a cgroup without write access to another one, so `setsid`, double forks and a
// scrubbed environment all stay findable. Elsewhere commands run without one and the /proc walk
// (tree.ts) is all there is. The cgroup only finds processes; killing and "is it gone" stay
// with /proc, which also sees what a failed move left outside.
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { posix } from 'node:path';

/** The shell that moves itself into the cgroup, then execs the user's shell in its place. */
export const CGROUP_WRAPPER_SHELL = '/bin/sh';
/**
 * $1 = cgroup.procs, $2 = the user's shell, $3 = the command. A failed move still runs it, and
 * says nothing on the command's stderr (the braces put the redirect's own error under 2>).
 */
export const CGROUP_WRAPPER_SCRIPT = '{ echo 0 > "$1"; } 2>/dev/null; exec "$2" -c "$3"';
const CGROUP_PREFIX = 'dsh-exec-';

export type CgroupSupport =
  { readonly ok: true; readonly base: string } | { readonly ok: false; readonly reason: string };

/** mountinfo escapes space, tab, newline and backslash as \ooo. */
const unescape = (s: string) =>
  s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/** The cgroup v2 folder this process lives in, as a path under the mount, or a reason. */
const ownCgroupDir = (): CgroupSupport => {
  let mount: { root: string; point: string } | undefined;
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [left, right] = line.split(' - ');
    if (right?.split(' ')[0] !== 'cgroup2' || !left) continue;
    const f = left.split(' ');
    if (f[3] && f[4]) mount = { root: unescape(f[3]), point: unescape(f[4]) };
  }
  if (!mount) return { ok: false, reason: 'no cgroup v2 hierarchy is mounted' };
  const own = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('0::'))
    ?.slice(3);
  if (own === undefined) return { ok: false, reason: 'this process has no cgroup v2 entry' };
  const root = mount.root;
  if (!(own === root || own.startsWith(root === '/' ? '/' : `${root}/`))) {
    return { ok: false, reason: `own cgroup ${own} lies outside the mounted ${root}` };
  }
  return { ok: true, base: posix.join(mount.point, own.slice(root === '/' ? 0 : root.length)) };
};

/** Whether commands can get a cgroup of their own here: creates and removes a probe. */
export const detectCgroupSupport = (): CgroupSupport => {
  try {
    accessSync(CGROUP_WRAPPER_SHELL, constants.X_OK);
  } catch {
    return { ok: false, reason: `${CGROUP_WRAPPER_SHELL} is not available` };
  }
  let own: CgroupSupport;
  try {
    own = ownCgroupDir();
  } catch (e) {
    return { ok: false, reason: `cannot read this process's cgroup (${errCode(e)})` };
  }
  if (!own.ok) return own;
  const probe = posix.join(own.base, `${CGROUP_PREFIX}probe-${randomBytes(6).toString('hex')}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
  } catch (e) {
    return { ok: false, reason: `cannot create a cgroup under ${own.base} (${errCode(e)})` };
  }
  return own;
};

const errCode = (e: unknown) => (e as NodeJS.ErrnoException)?.code ?? 'error';

/** Where one command's cgroup goes (named by its mark); made by createCommandCgroup. */
export const commandCgroupPath = (base: string, mark: string): string =>
  posix.join(base, `${CGROUP_PREFIX}${mark}`);

/** Makes a command's cgroup; false when it cannot be made (the command runs without one). */
export const createCommandCgroup = (dir: string): boolean => {
  try {
    mkdirSync(dir);
    return true;
  } catch {
    return false;
  }
};

export const procsFile = (dir: string) => posix.join(dir, 'cgroup.procs');

/** The pids in a command's cgroup (zombies have already left it). */
export const cgroupPids = (dir: string): Set<number> => {
  try {
    const text = readFileSync(procsFile(dir), 'latin1');
    return new Set(text.split('\n').filter(Boolean).map(Number));
  } catch {
    return new Set();
  }
};

/** Removes an emptied command cgroup; false while something still lives in it. */
export const removeCommandCgroup = (dir: string): boolean => {
  try {
    rmdirSync(dir);
    return true;
  } catch (e) {
    return errCode(e) === 'ENOENT';
  }
};
