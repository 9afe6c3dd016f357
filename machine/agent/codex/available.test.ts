import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCodex } from './available.ts';

// E10: the machine offers `codex` only when the binary runs, and says plainly when it does not.

describe('E10: is Codex there', () => {
  it('the packaged codex answers with its version', async () => {
    expect(await checkCodex()).toEqual({ ok: true, detail: 'codex 0.171.0' });
  });

  it('a path with no codex behind it is named in the message', async () => {
    const missing = path.join('/nonexistent', 'codex');
    const r = await checkCodex(missing);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/^codex: \/nonexistent\/codex did not run \(.*ENOENT/);
  });
});
