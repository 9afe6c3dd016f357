import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTmpDir } from '../../../testkit/tmp.ts';
import { answersOf, approvalAsk, questionsOf } from './tools.ts';

// E10: what Claude's permission requests and questions become, without the CLI.

const dirs: Array<{ cleanup(): void }> = [];
afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()));
const folder = () => {
  const t = makeTmpDir('claude-tools-');
  dirs.push(t);
  return t.dir;
};

describe('E10: Claude requests on the card', () => {
  it('E10: Bash is a run with its command and description; Write of a new file diffs against /dev/null; MultiEdit applies every edit', () => {
    const cwd = folder();
    expect(approvalAsk('Bash', { command: 'npm test', description: 'Run the tests' }, cwd)).toEqual(
      {
        tool: 'run',
        agentTool: 'Bash',
        title: 'Run: Run the tests',
        detail: `npm test\n\nRun the tests\nin ${cwd}`,
        command: 'npm test',
      },
    );
    const created = approvalAsk('Write', { file_path: 'new.md', content: 'hello\n' }, cwd);
    expect(created).toMatchObject({ tool: 'write', agentTool: 'Write', title: 'Create new.md' });
    expect(created.detail).toContain('--- /dev/null');
    expect(created.detail).toContain('+++ b/new.md');
    expect(created.detail).toContain('+hello');
    writeFileSync(path.join(cwd, 'a.txt'), 'alpha\nbeta\ngamma\n');
    const multi = approvalAsk(
      'MultiEdit',
      {
        file_path: path.join(cwd, 'a.txt'),
        edits: [
          { old_string: 'alpha', new_string: 'ALPHA' },
          { old_string: 'gamma', new_string: 'GAMMA' },
        ],
      },
      cwd,
    );
    expect(multi.detail).toMatch(/-alpha\n[\s\S]*\+ALPHA/);
    expect(multi.detail).toMatch(/-gamma\n\+GAMMA/);
    expect(approvalAsk('Read', { file_path: '/etc/hosts' }, cwd)).toMatchObject({
      tool: 'other',
      agentTool: 'Read',
      detail: 'path: /etc/hosts',
    });
  });

  it("E10: AskUserQuestion's questions become items (free text allowed); the answers map question → labels", () => {
    const questions = questionsOf({
      questions: [
        {
          question: 'Which?',
          header: 'Pick',
          multiSelect: true,
          options: [{ label: 'A' }, { label: 'B' }],
        },
      ],
    });
    expect(questions).toEqual([
      {
        prompt: 'Which?',
        header: 'Pick',
        options: ['A', 'B'],
        multiSelect: true,
        allowFreeText: true,
      },
    ]);
    expect(answersOf(questions, [{ labels: ['A', 'B'] }])).toEqual({ 'Which?': 'A, B' });
    expect(answersOf(questions, [{ labels: [], freeText: 'neither' }])).toEqual({
      'Which?': 'neither',
    });
  });
});
