import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../protocol/index.ts';
import {
  gapsOf,
  mergePage,
  olderCursor,
  reachesStart,
  type TranscriptView,
} from './transcript-merge.ts';

const e = (seq: number, text = `e${seq}`): TranscriptEntry => ({
  seq,
  role: seq % 2 ? 'user' : 'assistant',
  text,
  ts: seq,
});
const page = (seqs: number[], more: boolean) => ({ entries: seqs.map((s) => e(s)), more });
const seqs = (t: TranscriptView) => t.entries.map((x) => x.seq);

describe('U3: the transcript never shrinks (merge by seq)', () => {
  it('U3.1: the turn ends and the newest page holds only the last message: the 4 entries on screen stay', () => {
    let t = mergePage(undefined, page([1, 2, 3, 4], false), undefined, 1);
    // The turn's long final answer fills the whole newest page: the entries before it are beyond.
    t = mergePage(t, page([9], true), undefined, 2);
    expect(seqs(t)).toEqual([1, 2, 3, 4, 9]);
    expect(reachesStart(t)).toBe(true);
    expect(gapsOf(t)).toEqual([9]);
    // Filling the gap (before = 9) joins that range even though the machine skipped seq 8.
    t = mergePage(t, page([6, 7], true), 9, 3);
    expect(gapsOf(t)).toEqual([6]);
    t = mergePage(t, page([5], true), 6, 4);
    expect(seqs(t)).toEqual([1, 2, 3, 4, 5, 6, 7, 9]);
    expect(gapsOf(t)).toEqual([]);
    expect(reachesStart(t)).toBe(true);
  });

  it('U3.1: overlapping pages never duplicate an entry, and the newest copy of an entry wins', () => {
    let t = mergePage(undefined, page([3, 4, 5], true), undefined, 1);
    t = mergePage(t, { entries: [e(5, 'edited'), e(6)], more: true }, undefined, 2);
    expect(seqs(t)).toEqual([3, 4, 5, 6]);
    expect(t.entries.find((x) => x.seq === 5)!.text).toBe('edited');
    expect(gapsOf(t)).toEqual([]);
  });

  it('U3.1: a page that says "more" is never shown as the start; the cursor asks below it', () => {
    let t = mergePage(undefined, page([10, 11], true), undefined, 1);
    expect(reachesStart(t)).toBe(false);
    expect(olderCursor(t)).toBe(10);
    t = mergePage(t, page([8, 9], true), 10, 2);
    expect(olderCursor(t)).toBe(8);
    t = mergePage(t, page([], false), 8, 3);
    expect(reachesStart(t)).toBe(true);
    expect(olderCursor(t)).toBeNull();
    expect(seqs(t)).toEqual([8, 9, 10, 11]);
  });

  it('U3.1: an empty conversation, then entries: the later entries are not taken for the start', () => {
    let t = mergePage(undefined, page([], false), undefined, 1);
    expect(reachesStart(t)).toBe(true);
    t = mergePage(t, page([5, 6], true), undefined, 2);
    expect(reachesStart(t)).toBe(true);
    expect(gapsOf(t)).toEqual([5]);
  });

  it('H10: keeps at most the newest N entries; the first range then no longer reaches the start', () => {
    const t = mergePage(undefined, page([1, 2, 3, 4, 5, 6], false), undefined, 1, 4);
    expect(seqs(t)).toEqual([3, 4, 5, 6]);
    expect(reachesStart(t)).toBe(false);
    expect(olderCursor(t)).toBe(3);
  });
});
