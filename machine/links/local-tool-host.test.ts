import { readFileSync, readdirSync, writeFileSync, symlinkSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeLocalToolHost, MAX_TOOL_OUTPUT_BYTES } from './local-tool-host.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';

let cleanup: () => void = () => {};
afterEach(() => cleanup());
function setup() {
  const t = makeTmpDir();
  cleanup = t.cleanup;
  const root = path.join(t.dir, 'root');
  mkdirSync(root);
  return { base: t.dir, root, host: makeLocalToolHost({ roots: [root], shell: '/bin/sh' }) };
}

/** Waits for the child to report it started (it writes the file); bounded. */
async function waitForFile(file: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (
      readdirSync(path.dirname(file)).includes(path.basename(file)) &&
      readFileSync(file, 'utf8').endsWith('\n')
    )
      return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${file} never appeared`);
}

const isDead = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
};

describe('ToolHost (local): real child processes in the session cwd', () => {
  it('exec runs in the cwd and reports exit code and output', async () => {
    const { root, host } = setup();
    const r = await host.exec({ command: 'pwd; echo err >&2; exit 3', cwd: root });
    expect(r).toEqual({
      ok: true,
      value: {
        exitCode: 3,
        stdout: root + '\n',
        stderr: 'err\n',
        truncated: { stdout: false, stderr: false },
      },
    });
  });

  it('output is capped with truncated flags', async () => {
    const { root, host } = setup();
    const r = await host.exec({
      command: `head -c ${MAX_TOOL_OUTPUT_BYTES * 2} /dev/zero`,
      cwd: root,
    });
    expect(r.ok && r.value.stdout.length).toBe(MAX_TOOL_OUTPUT_BYTES);
    expect(r.ok && r.value.truncated).toEqual({ stdout: true, stderr: false });
  });

  it('timeout kills the whole process group (grandchildren too) and answers timeout', async () => {
    const { root, host } = setup();
    const r = await host.exec({
      command: 'sleep 999 & echo $! > pid; sleep 999',
      cwd: root,
      timeoutMs: 200,
    });
    expect(r).toMatchObject({ ok: false, code: 'timeout' });
    const pid = Number(readFileSync(path.join(root, 'pid'), 'utf8'));
    // The pipes close while the killed grandchild is still in exit(); it is past saving, but
    // /proc shows it as a zombie only a moment later.
    await expect.poll(() => isDead(pid)).toBe(true);
  });

  it('abort and close() kill the group', async () => {
    const { root, host } = setup();
    const ac = new AbortController();
    const p = host.exec({ command: 'echo $$ > pid; sleep 999', cwd: root, signal: ac.signal });
    await waitForFile(path.join(root, 'pid'));
    ac.abort();
    expect(await p).toMatchObject({ ok: false, code: 'aborted' });
    const p2 = host.exec({ command: 'sleep 999 & echo $! > pid2; sleep 999', cwd: root });
    await waitForFile(path.join(root, 'pid2'));
    await host.close();
    expect(await p2).toMatchObject({ ok: true, value: { exitCode: null, signal: 'SIGKILL' } });
    const pid2 = Number(readFileSync(path.join(root, 'pid2'), 'utf8'));
    await expect.poll(() => isDead(pid2)).toBe(true);
    expect(await host.exec({ command: 'true', cwd: root })).toMatchObject({
      ok: false,
      code: 'aborted',
    });
  });

  it('a background child cannot keep a finished command alive', async () => {
    const { root, host } = setup();
    const r = await host.exec({ command: '(sleep 999 &) ; echo done', cwd: root });
    expect(r).toMatchObject({ ok: true, value: { exitCode: 0, stdout: 'done\n' } });
  });

  it('files: write is atomic (no temp left), read, list; errors carry device-protocol codes', async () => {
    const { root, host } = setup();
    const f = path.join(root, 'a.txt');
    expect(await host.writeFile(f, 'one')).toEqual({
      ok: true,
      value: { canonicalPath: f, created: true },
    });
    expect(await host.writeFile(f, 'two')).toEqual({
      ok: true,
      value: { canonicalPath: f, created: false },
    });
    expect(await host.readTextFile(f)).toEqual({
      ok: true,
      value: { text: 'two', truncated: false },
    });
    mkdirSync(path.join(root, 'd'));
    expect(await host.listDir(root)).toEqual({
      ok: true,
      value: [
        { name: 'a.txt', kind: 'file', size: 3 },
        { name: 'd', kind: 'dir', size: 0 },
      ],
    });
    expect(await host.readTextFile(path.join(root, 'nope'))).toMatchObject({
      ok: false,
      code: 'not_found',
    });
    expect(await host.readTextFile(path.join(root, 'd'))).toMatchObject({
      ok: false,
      code: 'is_directory',
    });
    expect(await host.writeFile(path.join(root, 'd'), 'x')).toMatchObject({
      ok: false,
      code: 'is_directory',
    });
    expect(await host.writeFile(path.join(root, 'no/such/dir.txt'), 'x')).toMatchObject({
      ok: false,
      code: 'not_found',
    });
  });

  it('createDir makes the folder and its missing parents; an existing folder is fine; a file in the way is refused', async () => {
    const { root, host } = setup();
    expect(await host.createDir(path.join(root, 'a/b/c'))).toEqual({ ok: true, value: undefined });
    expect(await host.writeFile(path.join(root, 'a/b/c/f.txt'), 'x')).toMatchObject({ ok: true });
    expect(await host.createDir(path.join(root, 'a/b'))).toEqual({ ok: true, value: undefined });
    expect(await host.createDir(path.join(root, 'a/b/c/f.txt'))).toMatchObject({ ok: false });
  });

  it('containment: paths outside the roots (also through a symlink) are refused with permission_denied', async () => {
    const { base, root, host } = setup();
    writeFileSync(path.join(base, 'secret'), 's');
    symlinkSync(base, path.join(root, 'out'));
    expect(await host.readTextFile(path.join(base, 'secret'))).toMatchObject({
      ok: false,
      code: 'permission_denied',
    });
    expect(await host.readTextFile(path.join(root, 'out/secret'))).toMatchObject({
      ok: false,
      code: 'permission_denied',
    });
    expect(await host.writeFile(path.join(root, 'out/new'), 'x')).toMatchObject({
      ok: false,
      code: 'permission_denied',
    });
    expect(await host.createDir(path.join(root, 'out/made'))).toMatchObject({
      ok: false,
      code: 'permission_denied',
    });
    expect(readdirSync(base).filter((n) => n === 'made')).toEqual([]);
    expect(await host.exec({ command: 'true', cwd: base })).toMatchObject({
      ok: false,
      code: 'permission_denied',
    });
    expect(await host.listDir('relative')).toMatchObject({ ok: false, code: 'invalid' });
  });
});
