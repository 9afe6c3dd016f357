import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTmpDir, type TmpDir } from '../../../testkit/tmp.ts';
import { geminiMinute, keepGeminiHistory } from './gemini-history.ts';

// The store as Gemini CLI 0.61 lays it out; the real binary's resume across a restart in the same
// minute is proven in gemini.test.ts.
const ID = '3d701f2d-fd5f-4315-af86-fe0b84dabf61';
const AT = new Date('2026-12-07T22:34:30.712Z');

let home: TmpDir | undefined;
afterEach(() => home?.cleanup());

function store(files: Record<string, string>) {
  home = makeTmpDir('gemini-history-');
  const chats = path.join(home.dir, '.gemini', 'tmp', 'work', 'chats');
  mkdirSync(chats, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(chats, name), text);
  return { env: { HOME: home.dir }, chats, list: () => readdirSync(chats).sort() };
}

describe('E10: a Gemini conversation loaded in the minute it began keeps its history', () => {
  it('E10: the file named for the current minute is set aside under a name Gemini still finds, its content whole', () => {
    const s = store({ 'session-2026-12-07T22-34-3d701f2d.jsonl': 'history\n' });
    const kept = keepGeminiHistory(ID, s.env, AT);
    expect(s.list()).toEqual(['session-2026-12-07T22-34-kept1-3d701f2d.jsonl']);
    expect(kept).toEqual([path.join(s.chats, 'session-2026-12-07T22-34-kept1-3d701f2d.jsonl')]);
    expect(readFileSync(kept[0]!, 'utf8')).toBe('history\n');
    expect(
      kept[0]!.endsWith('-3d701f2d.jsonl') && path.basename(kept[0]!).startsWith('session-'),
    ).toBe(true);
  });

  it('E10: a second load in the same minute never replaces the first one’s kept file', () => {
    const s = store({
      'session-2026-12-07T22-34-kept1-3d701f2d.jsonl': 'history\n',
      'session-2026-12-07T22-34-3d701f2d.jsonl': 'what the first load recorded\n',
    });
    keepGeminiHistory(ID, s.env, AT);
    expect(s.list()).toEqual([
      'session-2026-12-07T22-34-kept1-3d701f2d.jsonl',
      'session-2026-12-07T22-34-kept2-3d701f2d.jsonl',
    ]);
    expect(readFileSync(path.join(s.chats, s.list()[0]!), 'utf8')).toBe('history\n');
  });

  it('E10: another minute, another conversation, or no store at all: nothing is touched', () => {
    const s = store({
      'session-2026-12-07T22-33-3d701f2d.jsonl': 'older minute\n',
      'session-2026-12-07T22-34-aaaaaaaa.jsonl': 'another conversation\n',
    });
    expect(keepGeminiHistory(ID, s.env, AT)).toEqual([]);
    expect(s.list()).toEqual([
      'session-2026-12-07T22-33-3d701f2d.jsonl',
      'session-2026-12-07T22-34-aaaaaaaa.jsonl',
    ]);
    expect(keepGeminiHistory(ID, { HOME: path.join(s.chats, 'nowhere') }, AT)).toEqual([]);
  });

  it('E10: the minute is written as Gemini writes it (UTC, colons as dashes)', () => {
    expect(geminiMinute(AT)).toBe('2026-12-07T22-34');
  });
});
