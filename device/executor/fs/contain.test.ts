import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTmpDirs } from '../../../testkit/tmp.ts';
import { makeContainment } from './contain.ts';

const tmp = makeTmpDirs();
afterEach(() => tmp.cleanup());

const setup = () => {
  const ws = tmp.make('dsh-ws-');
  const tempRoot = tmp.make('dsh-tr-');
  const outside = tmp.make('dsh-out-');
  const keyDir = join(ws, '.keys'); // a user may put it inside the workspace: still refused
  mkdirSync(keyDir);
  writeFileSync(join(keyDir, 'device-key.pem'), 'secret');
  writeFileSync(join(outside, 'o'), 'o');
  return { ws, tempRoot, outside, keyDir, c: makeContainment([ws, tempRoot], keyDir) };
};

describe('containment (§6.6, X2)', () => {
  it('paths inside the workspace root or the temp root are served, missing ones included', async () => {
    const { ws, tempRoot, c } = setup();
    for (const p of [ws, join(ws, 'a'), join(ws, 'no/such/deep'), join(tempRoot, 'x')]) {
      expect(await c.check(p, { followFinal: true })).toMatchObject({ ok: true });
    }
  });

  it('paths outside both roots are refused permission_denied', async () => {
    const { outside, c } = setup();
    expect(await c.check(join(outside, 'o'), { followFinal: true })).toMatchObject({
      errorCode: 'permission_denied',
    });
    expect(await c.check('/etc/passwd', { followFinal: false })).toMatchObject({
      errorCode: 'permission_denied',
    });
  });

  it('X2: the key folder is always refused, even inside the workspace and through a symlink', async () => {
    const { ws, keyDir, c } = setup();
    expect(await c.check(join(keyDir, 'device-key.pem'), { followFinal: true })).toMatchObject({
      errorCode: 'permission_denied',
    });
    expect(await c.check(keyDir, { followFinal: false })).toMatchObject({
      errorCode: 'permission_denied',
    });
    symlinkSync(keyDir, join(ws, 'innocent'));
    expect(await c.check(join(ws, 'innocent/device-key.pem'), { followFinal: true })).toMatchObject(
      { errorCode: 'permission_denied' },
    );
    expect(await c.check(join(ws, 'innocent'), { followFinal: true })).toMatchObject({
      errorCode: 'permission_denied',
    });
  });

  it('a symlink escaping the roots is refused when followed, never redirected', async () => {
    const { ws, outside, c } = setup();
    symlinkSync(outside, join(ws, 'esc'));
    expect(await c.check(join(ws, 'esc/o'), { followFinal: true })).toMatchObject({
      errorCode: 'permission_denied',
    });
    expect(await c.check(join(ws, 'esc/new-file'), { followFinal: false })).toMatchObject({
      errorCode: 'permission_denied',
    });
    // The link itself (not followed) lives in the workspace: lstat/readLink on it are fine.
    expect(await c.check(join(ws, 'esc'), { followFinal: false })).toMatchObject({ ok: true });
  });

  it('paths that are not absolute and normalized are invalid (they are never re-interpreted)', async () => {
    const { ws, c } = setup();
    for (const p of ['rel/x', `${ws}/../x`, `${ws}/./a`, `${ws}//a`, `${ws}/a/`, '', `${ws}/\0`]) {
      expect(await c.check(p, { followFinal: true })).toMatchObject({ errorCode: 'invalid' });
    }
    expect(await c.check(42, { followFinal: true })).toMatchObject({ errorCode: 'invalid' });
  });
});
