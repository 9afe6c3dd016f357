import { describe, expect, it } from 'vitest';
import type { TranscriptEntry, TurnFinal } from '../../protocol/index.ts';
import type { ClosedNote } from './machine-view.ts';
import { finalWords, outcomeOf, timelineOf, toolCallOf } from './timeline.ts';
import { cap, mergePage, MAX_TRANSCRIPT_ENTRIES_CACHED } from './transcript-merge.ts';

const entry = (seq: number, role: 'user' | 'assistant', text: string, ts = seq * 10) =>
  ({ seq, role, text, ts }) as TranscriptEntry;
const note = (over: Partial<ClosedNote>): ClosedNote => ({
  kind: 'approval',
  id: 'a1',
  resolution: 'allow',
  sessionId: 's1',
  title: 'Run a command',
  at: 0,
  ts: 0,
  ...over,
});
const final = (over: Partial<TurnFinal>): TurnFinal => ({
  v: 1,
  type: 'turn.final',
  ts: 1000,
  sessionId: 's1',
  ok: true,
  summary: 'done',
  ...over,
});

describe('SC1: one timeline, newest last', () => {
  it('SC1: what you typed, the agent’s text, tool calls and each card’s outcome sit where they happened', () => {
    const items = timelineOf(
      [
        entry(1, 'user', 'run: npm test', 10),
        entry(2, 'assistant', '$ npm test\nok 1\nok 2\n(exit 0)', 40),
        entry(3, 'assistant', 'All green.', 50),
      ],
      [note({ askedTs: 20, ts: 30, chosen: { scope: 'once' } })],
      final({ ts: 60 }),
    );
    expect(items.map((i) => i.kind)).toEqual(['text', 'outcome', 'tool', 'text', 'final']);
    const tool = items[2]!;
    expect(tool.kind === 'tool' && tool.call).toEqual({
      name: 'run',
      line: 'npm test',
      output: 'ok 1\nok 2\n(exit 0)',
    });
  });
  it('SC1: an outcome asked before the oldest held entry waits until that page is loaded', () => {
    const items = timelineOf([entry(5, 'user', 'hi', 500)], [note({ askedTs: 100 })], undefined);
    expect(items.map((i) => i.kind)).toEqual(['text']);
  });
  it('SC1: your own text is never taken for a tool call; Read with text is one', () => {
    expect(toolCallOf(entry(1, 'user', '$ rm -rf /'))).toBeNull();
    expect(toolCallOf(entry(2, 'assistant', 'Read a.txt:\nline'))).toEqual({
      name: 'read',
      line: 'a.txt',
      output: 'line',
    });
    expect(toolCallOf(entry(3, 'assistant', 'plain words'))).toBeNull();
  });
});

describe('SC1: outcomes as chosen', () => {
  it('SC1: allowed once, for this session, always with the key, with changes; denied with your words; answered with labels', () => {
    expect(outcomeOf(note({ chosen: { scope: 'once' } })).key).toBe('tl.allowedOnce');
    expect(outcomeOf(note({ chosen: { scope: 'session' } })).key).toBe('tl.allowedSession');
    expect(outcomeOf(note({ chosen: { scope: 'always', ruleKey: 'run: npm test' } }))).toEqual({
      key: 'tl.allowedAlways',
      params: { key: 'run: npm test' },
    });
    expect(outcomeOf(note({ chosen: { scope: 'once', edited: 'ls' } })).key).toBe(
      'tl.allowedEdited',
    );
    expect(outcomeOf(note({ resolution: 'deny', chosen: { message: 'not now' } }))).toEqual({
      key: 'tl.deniedSaying',
      params: { message: 'not now' },
    });
    expect(outcomeOf(note({ resolution: 'deny' })).key).toBe('tl.denied');
    expect(
      outcomeOf(note({ kind: 'question', resolution: 'phone', chosen: { labels: ['A', 'C'] } })),
    ).toEqual({ key: 'tl.answered', params: { labels: 'A, C' } });
  });
  it('SC1: decided elsewhere the scope is unknown, so it says only Allowed; other endings keep their note', () => {
    expect(outcomeOf(note({})).key).toBe('tl.allowed');
    expect(outcomeOf(note({ resolution: 'gone' })).key).toBe('closed.approval.gone');
    expect(outcomeOf(note({ kind: 'question', resolution: 'local' })).key).toBe(
      'closed.question.local',
    );
  });
  it('E4/E11: a stopped turn is "Stopped by you", never an error', () => {
    expect(finalWords(final({ ok: false, reason: 'interrupted' }))).toBe('tl.final.stopped');
    expect(finalWords(final({ ok: false, reason: 'agent-crashed' }))).toBe('tl.final.failed');
    expect(finalWords(final({}))).toBe('tl.final.ok');
  });
  it('E11.7: a turn the machine stop cut short reads "Stopped — the machine shut down", neither an error nor "by you"', () => {
    expect(finalWords(final({ ok: false, reason: 'machine-stopped' }))).toBe(
      'tl.final.machineStopped',
    );
  });
});

describe('SC1: a long conversation can be read back', () => {
  it('SC1: older pages past 300 entries are kept in memory; the disk keeps the newest 300', () => {
    const page = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => entry(from + i, 'assistant', `m${from + i}`));
    let view = mergePage(undefined, { entries: page(1501, 2000), more: true }, undefined, 0);
    for (let hi = 1500; hi > 0; hi -= 500)
      view = mergePage(view, { entries: page(hi - 499, hi), more: hi > 500 }, hi + 1, 0);
    expect(view.entries).toHaveLength(2000);
    expect(view.spans).toEqual([{ lo: null, hi: 2000, joins: 1501 }]);
    const cached = cap(view, MAX_TRANSCRIPT_ENTRIES_CACHED);
    expect(cached.entries[0]!.seq).toBe(1701);
  });
});

describe('E11: cards that say why', () => {
  it('E11: the command is the title when the machine’s title does not name it; other titles stay', async () => {
    const { headingOf, riskKey } = await import('./card-words.ts');
    expect(
      headingOf({
        tool: 'run',
        title: 'Run a command',
        detail: 'git push --force origin main\n\nin /r',
      }),
    ).toEqual({ command: 'git push --force origin main' });
    expect(headingOf({ tool: 'run', title: 'Run npm test', detail: 'npm test' })).toEqual({
      title: 'Run npm test',
    });
    expect(headingOf({ tool: 'write', title: 'Write a.txt', detail: 'text' })).toEqual({
      title: 'Write a.txt',
    });
    expect(headingOf({ title: 'Run a command', detail: 'ls -la' })).toEqual({ command: 'ls -la' });
    // E10: an ACP agent's command comes with its tool kind `execute`.
    expect(headingOf({ tool: 'execute', title: 'Run a command', detail: 'ls -la\n\nwhy' })).toEqual(
      {
        command: 'ls -la',
      },
    );
    expect(riskKey('force-push')).toBe('risk.force-push');
    expect(riskKey('brand-new-code')).toBe('risk.other');
  });
});

describe('E11: a deny the agent hears', () => {
  it('E11: the message rides on a deny only, trimmed, left out when blank, refused over 500 characters', async () => {
    const { denyMessageExtra } = await import('./extensions.ts');
    expect(denyMessageExtra('deny', '  use staging  ')).toEqual({
      ok: true,
      extras: { message: 'use staging' },
    });
    expect(denyMessageExtra('deny', '   ')).toEqual({ ok: true, extras: {} });
    expect(denyMessageExtra('allow', 'why')).toEqual({ ok: true, extras: {} });
    expect(denyMessageExtra('deny', '界'.repeat(500))).toMatchObject({ ok: true });
    expect(denyMessageExtra('deny', '界'.repeat(501))).toEqual({
      ok: false,
      code: 'message-too-long',
    });
  });
});
