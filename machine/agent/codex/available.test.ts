import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTmpDir } from '../../../testkit/tmp.ts';
import { checkCodex } from './available.ts';
import { resolveCodex } from './binary.ts';

// E10: the machine offers `codex` only when the binary runs, and says plainly when it does not.

const tmp = makeTmpDir('codex-available-');
afterAll(() => tmp.cleanup());

describe('E10: is Codex there', () => {
  it('E10 packaging: the codex in agents/node_modules answers with its version', async () => {
    const r = await checkCodex(resolveCodex(undefined, ''));
    expect(r).toEqual({
      ok: true,
      detail: expect.stringMatching(
        /^codex 0\.171\.0 \(.*agents\/node_modules\/@openai\/codex\/bin\/codex\.js, from agents\/ \(npm run agents:install\)\)$/,
      ),
    });
  });

  it('E10: a codex that does not run is named in the message', async () => {
    const broken = path.join(tmp.dir, 'codex');
    writeFileSync(broken, '#!/bin/sh\necho "no such thing" >&2\nexit 3\n');
    chmodSync(broken, 0o755);
    const r = await checkCodex(resolveCodex(broken, ''));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(`codex: ${broken} did not run (Command failed: `);
  });
});
