import { describe, expect, it } from 'vitest';
import { missingPrereqs, prereqs } from './prereqs.ts';

describe('npm test checks its system prerequisites first', () => {
  it('a missing Chromium is named with the exact install command', () => {
    const { missing, install } = missingPrereqs(
      prereqs({ CHROMIUM_PATH: '/nonexistent/chromium' }),
    );
    expect(missing.map((p) => p.pkg)).toContain('chromium');
    expect(install).toMatch(/^sudo apt-get install -y .*\bchromium\b/);
  });

  it('one command installs every missing package, and nothing present is listed', () => {
    const fake = (pkg: string, present: boolean) => ({ pkg, why: 'test', present: () => present });
    const { missing, install } = missingPrereqs([
      fake('a', true),
      fake('b', false),
      fake('c', false),
    ]);
    expect(missing.map((p) => p.pkg)).toEqual(['b', 'c']);
    expect(install).toBe('sudo apt-get install -y b c');
  });
});
