import { describe, expect, it } from 'vitest';
import { approvalOffer, commandKey, editedRisk, writeKey } from './approval-offer.ts';

// E2/E3/E11: the mock machine's offer policy, the reference a real plugin follows.

const cwd = '/work/root/app';
const standard = { cwd, access: 'standard' as const, root: '/work/root' };
const run = (command: string) => ({ tool: 'run' as const, title: 'Run', detail: command, command });
const write = (path: string) => ({ tool: 'write' as const, title: 'Write', detail: 'x', path });

const key = (command: string) => commandKey(command, cwd);
const riskOf = (command: string) => approvalOffer(run(command), standard).risk?.reason;

describe('E2: what may be remembered, and under which key', () => {
  it('E2: a simple command is keyed by its exact command line, for the session only', () => {
    expect(key('npm test --silent')).toBe('run: npm test --silent');
    expect(key('  npm   test  ')).toBe('run: npm test');
    expect(approvalOffer(run('npm test'), standard)).toEqual({
      tool: 'run',
      rule: { key: 'run: npm test', scopes: ['session'] },
      editable: { label: 'Command', value: 'npm test' },
    });
  });

  it('E2: a rule for `git reset` does not cover `git reset --hard` (exact keys)', () => {
    expect(key('git reset')).toBe('run: git reset');
    expect(key('git reset --hard')).toBe('run: git reset --hard');
    expect(key('git reset --hard')).not.toBe(key('git reset'));
  });

  it('E2: a rule for `find .` does not cover `find . -delete` (a recursive delete is never keyed)', () => {
    expect(key('find .')).toBe('run: find *');
    expect(key('find . -delete')).toBeNull();
    expect(riskOf('find . -delete')).toBe('recursive-delete');
  });

  it('E2: the read-only commands are keyed broadly, with any arguments that stay in the folder', () => {
    expect(key('ls')).toBe('run: ls *');
    expect(key('ls -la src')).toBe('run: ls *');
    expect(key('pwd')).toBe('run: pwd *');
    for (const p of ['cat', 'head', 'tail', 'wc', 'grep'])
      expect(key(`${p} -n x src/a.ts`)).toBe(`run: ${p} *`);
    expect(key('find src -name x.ts -type f')).toBe('run: find *');
    for (const sub of ['status', 'diff', 'log', 'show'])
      expect(key(`git ${sub} --stat HEAD`)).toBe(`run: git ${sub} *`);
  });

  it('E2: a read-only command is keyed exactly when an argument writes, runs another program or leaves the folder', () => {
    for (const c of [
      'find . -fprint out.txt',
      'find . -fprint0 out',
      'find . -fprintf out %p',
      'find . -fls out',
      'git diff --output=patch.txt',
      'git log --output patch.txt',
      'git diff --out=patch.txt',
      'git diff --ext-diff',
      'git -C . status',
      'git -c core.pager=x log',
      'cat /etc/passwd',
      'cat ../other/secret',
      'grep -r key /',
      'grep -f/etc/passwd src',
      'ls --directory=/etc',
      './ls',
      '/bin/cat README.md',
    ])
      expect(key(c)).toBe(`run: ${c}`);
    expect(key('cat /work/root/app/src/a.ts')).toBe('run: cat *');
  });

  it('E2: commands that write are keyed exactly, never by their program (sed -i, sort -o, git subcommands that write)', () => {
    for (const c of [
      'sed -i s/a/b/ f',
      'sed -n 1p f',
      'sort -o out in',
      'sort in',
      'git checkout -- .',
      'git commit -m x',
      'git branch -D main',
      'git stash drop',
      'awk -f x.awk f',
    ])
      expect(key(c)).toBe(`run: ${c}`);
  });

  it('E2: a command that chains, redirects, expands, quotes or globs is never keyed (a rule for its start would allow the rest)', () => {
    for (const c of [
      'npm test && curl x',
      'npm test; rm -rf ~',
      'npm test | sh',
      'echo x > a',
      'echo $(id)',
      'echo `id`',
      'echo $HOME',
      "echo 'a b'",
      'ls *',
      'npm test\nrm -rf ~',
      'ls ~',
    ]) {
      expect(key(c)).toBeNull();
      expect(riskOf(c)).toBe('not-simple');
    }
  });

  it('E2: recursive removal, network tools, forced pushes and programs that run another program are never keyed', () => {
    const cases: [string, string][] = [
      ['rm -rf build', 'recursive-delete'],
      ['rm -r build', 'recursive-delete'],
      ['rm -fR build', 'recursive-delete'],
      ['rm --recursive build', 'recursive-delete'],
      ['rm --recur build', 'recursive-delete'],
      ['find . -name x -delete', 'recursive-delete'],
      ['curl https://x', 'network'],
      ['/usr/bin/wget x', 'network'],
      ['ssh host', 'network'],
      ['git push origin', 'network'],
      ['git -C . push origin', 'network'],
      ['git clone x', 'network'],
      ['npm publish', 'network'],
      ['git push --force origin main', 'force-push'],
      ['git push -f', 'force-push'],
      ['git push -uf origin x', 'force-push'],
      ['git push --force-with-lease', 'force-push'],
      ['git push origin +main', 'force-push'],
      ['sudo make', 'runs-another-program'],
      ['env make', 'runs-another-program'],
      ['xargs rm', 'runs-another-program'],
      ['find . -exec rm {} +', 'not-simple'],
      ['find . -exec touch x ;', 'not-simple'],
      ['find . -execdir ls', 'runs-another-program'],
      ['find . -ok ls', 'runs-another-program'],
    ];
    for (const [c, reason] of cases) {
      expect(key(c)).toBeNull();
      expect(riskOf(c)).toBe(reason);
    }
    expect(key('rm build.log')).toBe('run: rm build.log');
  });

  it('E2: a write inside the session folder offers session and always; its key names the top folder or the file', () => {
    expect(writeKey(`${cwd}/src/deep/a.ts`, cwd)).toBe('write: src/**');
    expect(writeKey(`${cwd}/README.md`, cwd)).toBe('write: README.md');
    expect(approvalOffer(write(`${cwd}/src/a.ts`), standard)).toEqual({
      tool: 'write',
      rule: { key: 'write: src/**', scopes: ['session', 'always'] },
    });
  });

  it('E2: a write outside the folder, into .git, or to a name a key cannot spell offers nothing', () => {
    for (const p of [
      '/work/root/other/a.txt',
      '/etc/passwd',
      `${cwd}/.git/hooks/pre-commit`,
      `${cwd}/*`,
      `${cwd}/a\nb`,
      cwd,
    ])
      expect(approvalOffer(write(p), standard).rule).toBeUndefined();
  });

  it('E2: nothing is offered on a full-access session; without an allowed root a write is offered for the session only', () => {
    expect(approvalOffer(run('npm test'), { ...standard, access: 'full' }).rule).toBeUndefined();
    expect(
      approvalOffer(write(`${cwd}/a.txt`), { ...standard, access: 'full' }).rule,
    ).toBeUndefined();
    expect(approvalOffer(write(`${cwd}/a.txt`), { ...standard, root: undefined }).rule).toEqual({
      key: 'write: a.txt',
      scopes: ['session'],
    });
  });
});

describe('E11: a risky request says why', () => {
  it('E11: risk is set exactly when no rule is offered, with the reason', () => {
    const offers = [
      approvalOffer(run('npm test'), standard),
      approvalOffer(run('ls'), standard),
      approvalOffer(write(`${cwd}/a.txt`), standard),
    ];
    for (const o of offers) expect(o.risk).toBeUndefined();
    expect(approvalOffer(run('npm test'), { ...standard, access: 'full' }).risk).toEqual({
      reason: 'full-access',
    });
    expect(approvalOffer(write('/etc/passwd'), standard).risk).toEqual({
      reason: 'outside-folder',
    });
    expect(approvalOffer(write(`${cwd}/.git/config`), standard).risk).toEqual({ reason: 'other' });
    expect(approvalOffer(run(`echo ${'x'.repeat(600)}`), standard)).toMatchObject({
      risk: { reason: 'other' },
    });
    expect(approvalOffer(run(`echo ${'x'.repeat(600)}`), standard).rule).toBeUndefined();
  });

  it('E3 + E11: an edited command is classed again: risky when it would not have been offered a rule', () => {
    expect(editedRisk('npm test', standard)).toBeNull();
    expect(editedRisk('git reset --hard', standard)).toBeNull();
    expect(editedRisk('npm test && curl x', standard)).toEqual({ reason: 'not-simple' });
    expect(editedRisk('curl https://x', standard)).toEqual({ reason: 'network' });
    expect(editedRisk('find . -delete', standard)).toEqual({ reason: 'recursive-delete' });
    expect(editedRisk('npm test', { ...standard, access: 'full' })).toEqual({
      reason: 'full-access',
    });
  });
});

describe('E3: what may be edited', () => {
  it('E3: a command is editable when its JSON form fits 4 KiB; a write never is', () => {
    expect(approvalOffer(run('x'.repeat(4000)), standard).editable?.value).toHaveLength(4000);
    expect(approvalOffer(run('x'.repeat(5000)), standard).editable).toBeUndefined();
    expect(approvalOffer(run('\u0001'.repeat(1000)), standard).editable).toBeUndefined();
    expect(approvalOffer(write(`${cwd}/a`), standard).editable).toBeUndefined();
  });
});

describe("E10: a real agent's request", () => {
  it("E10: the offer names the agent's own tool; an 'other' request (a read, a fetch) is never remembered nor editable, and its card says it is risky (E11)", () => {
    expect(approvalOffer({ ...run('npm test'), agentTool: 'Bash' }, standard)).toEqual({
      tool: 'Bash',
      rule: { key: 'run: npm test', scopes: ['session'] },
      editable: { label: 'Command', value: 'npm test' },
    });
    expect(approvalOffer({ ...write(`${cwd}/src/a.ts`), agentTool: 'Edit' }, standard)).toEqual({
      tool: 'Edit',
      rule: { key: 'write: src/**', scopes: ['session', 'always'] },
    });
    expect(
      approvalOffer(
        { tool: 'other', agentTool: 'WebFetch', title: 'WebFetch', detail: '{}' },
        standard,
      ),
    ).toEqual({ tool: 'WebFetch', risk: { reason: 'other' } });
  });
});
