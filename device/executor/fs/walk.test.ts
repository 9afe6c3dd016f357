import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTmpDirs } from '../../../testkit/tmp.ts';
import { walkPath } from './walk.ts';

const tmp = makeTmpDirs();
afterEach(() => tmp.cleanup());

/** A tree with relative, absolute, chained and `..`-bearing links. */
const tree = () => {
  const d = tmp.make('dsh-walk-');
  mkdirSync(join(d, 'a/b/c'), { recursive: true });
  writeFileSync(join(d, 'a/b/c/f'), 'f');
  symlinkSync('b/c', join(d, 'a/rel'));
  symlinkSync(join(d, 'a/b'), join(d, 'abs'));
  symlinkSync('../rel', join(d, 'a/b/up'));
  symlinkSync('abs', join(d, 'chain'));
  symlinkSync('chain/c/f', join(d, 'to-file'));
  return d;
};

describe('H7a: the walk resolves as the kernel does', () => {
  it('H7a: for paths that exist, the walk ends where realpath(3) ends', async () => {
    const d = tree();
    for (const p of ['a/rel/f', 'abs/c', 'a/b/up/f', 'chain/up', 'to-file', 'a/b/c']) {
      const w = await walkPath(join(d, p), true);
      expect(w, p).toMatchObject({ ok: true, real: realpathSync(join(d, p)), exists: true });
    }
  });

  it('H7a: a final link is kept as itself when not followed; a missing tail is appended as written', async () => {
    const d = tree();
    expect(await walkPath(join(d, 'to-file'), false)).toEqual({
      ok: true,
      real: join(realpathSync(d), 'to-file'),
      exists: true,
      finalLink: false,
    });
    expect(await walkPath(join(d, 'abs/new/deeper'), true)).toEqual({
      ok: true,
      real: join(realpathSync(d), 'a/b/new/deeper'),
      exists: false,
      finalLink: false,
    });
    symlinkSync(join(d, 'nowhere/x'), join(d, 'dangling'));
    expect(await walkPath(join(d, 'dangling'), true)).toEqual({
      ok: true,
      real: join(d, 'nowhere/x'),
      exists: false,
      finalLink: true,
    });
  });

  it('H7a: /proc and /dev are refused at the hop that enters them; `..` below a missing part is not_found', async () => {
    const d = tree();
    symlinkSync('/proc/self/fd/0', join(d, 'fd0'));
    symlinkSync('/dev/fd/0', join(d, 'devfd0'));
    symlinkSync('nowhere/../a', join(d, 'climb'));
    expect(await walkPath(join(d, 'fd0'), true)).toEqual({
      ok: false,
      refused: 'special',
      at: '/proc',
    });
    expect(await walkPath(join(d, 'devfd0'), true)).toMatchObject({ refused: 'special' });
    // Not followed, the link is only an entry of d: nothing under /proc is touched.
    expect(await walkPath(join(d, 'fd0'), false)).toMatchObject({ ok: true, exists: true });
    expect(await walkPath(join(d, 'climb/b'), true)).toMatchObject({ refused: 'missing_parent' });
  });
});
