import { describe, expect, it } from 'vitest';
import { approvalOffer, commandKey, writeKey } from './approval-offer.ts';

// E2/E3: the mock machine's offer policy, the reference a real plugin follows.

const cwd = '/work/root/app';
const standard = { cwd, access: 'standard' as const, root: '/work/root' };
const run = (command: string) => ({ tool: 'run' as const, title: 'Run', detail: command, command });
const write = (path: string) => ({ tool: 'write' as const, title: 'Write', detail: 'x', path });

describe('E2: what may be remembered, and under which key', () => {
  it('E2: a simple command is keyed by its program and first argument, for the session only', () => {
    expect(commandKey('npm test --silent')).toBe('run: npm test');
    expect(commandKey('  ls  ')).toBe('run: ls');
    expect(approvalOffer(run('npm test'), standard)).toEqual({
      tool: 'run',
      rule: { key: 'run: npm test', scopes: ['session'] },
      editable: { label: 'Command', value: 'npm test' },
    });
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
    ])
      expect(commandKey(c)).toBeNull();
  });

  it('E2: recursive removal, network tools and programs that run another program are never keyed', () => {
    for (const c of [
      'rm -rf build',
      'rm -r build',
      'rm -fR build',
      'rm --recursive build',
      'curl https://x',
      '/usr/bin/wget x',
      'ssh host',
      'git push origin',
      'git clone x',
      'npm publish',
      'sudo make',
      'env make',
      'xargs rm',
    ])
      expect(commandKey(c)).toBeNull();
    expect(commandKey('rm build.log')).toBe('run: rm build.log');
    expect(commandKey('git status')).toBe('run: git status');
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

describe('E3: what may be edited', () => {
  it('E3: a command is editable when its JSON form fits 4 KiB; a write never is', () => {
    expect(approvalOffer(run('x'.repeat(4000)), standard).editable?.value).toHaveLength(4000);
    expect(approvalOffer(run('x'.repeat(5000)), standard).editable).toBeUndefined();
    expect(approvalOffer(run('\u0001'.repeat(1000)), standard).editable).toBeUndefined();
    expect(approvalOffer(write(`${cwd}/a`), standard).editable).toBeUndefined();
  });
});

describe("E10: a real agent's request", () => {
  it("E10: the offer names the agent's own tool; an 'other' request (a read, a fetch) is never remembered nor editable", () => {
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
    ).toEqual({ tool: 'WebFetch' });
  });
});
