import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTmpDir } from '../../testkit/tmp.ts';
import {
  callLine as call,
  resultLine as result,
  saidLine as said,
  userLine as user,
} from '../test-support/claude-session-file.ts';
import { makeTranscriptReader } from './claude-transcript.ts';

// E10 (desk sessions): the reader of Claude Code's own session file, and the position it hands
// the machine to keep, so a reader started afresh (after a restart) goes on exactly there.

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function file(): string {
  const t = makeTmpDir('claude-transcript-');
  cleanups.push(t.cleanup);
  return path.join(t.dir, 'session.jsonl');
}

const texts = (lines: Array<{ text: string }>) => lines.map((l) => l.text);

describe('E10: reading a desk session’s transcript file', () => {
  it('E10 hooks: a reader started from a kept position reads on from the end of the last whole line — a line half written then is read whole, once; a tool’s result is still named after its call', () => {
    const f = file();
    const half = said('Renamed 3 images.');
    writeFileSync(f, user('Rename the images') + call('toolu_1', 'mv a b') + half.slice(0, 20));
    const first = makeTranscriptReader(f, 'start');
    expect(texts(first.read())).toEqual(['Rename the images', 'Bash: mv a b']);
    const kept = first.position()!;
    expect(kept.offset).toBe(
      Buffer.byteLength(user('Rename the images') + call('toolu_1', 'mv a b')),
    );
    expect(kept.tools).toEqual([['toolu_1', 'Bash']]);

    // The machine is gone; Claude finishes the line and writes on.
    appendFileSync(f, half.slice(20) + result('toolu_1', 'moved'));
    const next = makeTranscriptReader(f, JSON.parse(JSON.stringify(kept)));
    expect(texts(next.read())).toEqual(['Renamed 3 images.', 'Bash result:\nmoved']);
    expect(next.position()).toEqual({ offset: Buffer.byteLength(readFileSync(f)), tools: [] });
    expect(next.read()).toEqual([]);
  });

  it('E10 hooks: a read takes at most its byte budget; the position is whole lines only, so the next reader takes the rest', () => {
    const f = file();
    writeFileSync(f, said('one') + said('two') + said('three'));
    const budget = Buffer.byteLength(said('one')) + 5;
    const r = makeTranscriptReader(f, 'start');
    expect(texts(r.read(budget))).toEqual(['one']);
    const again = makeTranscriptReader(f, r.position()!);
    expect(texts(again.read())).toEqual(['two', 'three']);
  });

  it('E10 hooks: a kept position past the end of a file now shorter (the file was replaced) reads the new file from its start', () => {
    const f = file();
    writeFileSync(f, said('a long first answer that makes the file long'));
    const r = makeTranscriptReader(f, 'start');
    r.read();
    writeFileSync(f, said('new'));
    expect(texts(makeTranscriptReader(f, r.position()!).read())).toEqual(['new']);
  });
});
