// R5–R8: every chunk is held until a chunkAck covers it and every result until its resultAck.
// After a reconnect the session re-sends, for each instruction the server still lists, the chunks
// above its watermark (same streamSeq, same bytes) and then the result (same deviceSeq). It is
// bounded: held chunk bytes pause the producers (flow control), held results are capped, and a
// result is sent on at most maxResultSends connections — then it is given up, loudly, and never
// turned into a re-execution.
import type { OutChunk } from './exec/chunker.ts';
import type { FlowControl } from './exec/flow.ts';
import type { Logger } from './log.ts';
import type { Outcome } from './outcome.ts';

export type HeldResult = { readonly deviceSeq: number; readonly outcome: Outcome; sends: number };

type Entry = {
  readonly id: string;
  chunks: OutChunk[];
  chunkBytes: number;
  ackedUpTo: number;
  result: HeldResult | null;
};

export type Outbox = {
  addChunk(id: string, chunk: OutChunk): void;
  setResult(id: string, deviceSeq: number, outcome: Outcome): void;
  /** Cumulative: releases chunks with streamSeq ≤ upTo. */
  chunkAck(id: string, upTo: number): void;
  /** The instruction is settled on the server: release everything held for it. */
  resultAck(id: string): void;
  /** The fence wrote it off: drop without sending anything more. */
  discard(id: string, why: string): void;
  /** Chunks with streamSeq > watermark, in order. */
  chunksAbove(id: string, watermark: number): readonly OutChunk[];
  /** The held result, counting this as one more send; null when none or given up. */
  takeResultForSend(id: string): HeldResult | null;
  has(id: string): boolean;
  ids(): string[];
  readonly heldResults: number;
};

export type OutboxOptions = {
  readonly flow: FlowControl;
  readonly maxHeldResults: number;
  readonly maxResultSends: number;
  readonly log: Logger;
};

export const encodedSize = (c: OutChunk): number => (c.kind === 'exit' ? 16 : c.b64.length);

export const makeOutbox = (opts: OutboxOptions): Outbox => {
  const entries = new Map<string, Entry>();
  let heldResults = 0;

  const entry = (id: string): Entry => {
    let e = entries.get(id);
    if (!e) {
      e = { id, chunks: [], chunkBytes: 0, ackedUpTo: -1, result: null };
      entries.set(id, e);
    }
    return e;
  };

  const drop = (id: string) => {
    const e = entries.get(id);
    if (!e) return;
    opts.flow.release(e.chunkBytes);
    if (e.result) heldResults -= 1;
    entries.delete(id);
  };

  const giveUpOldestResult = () => {
    for (const e of entries.values()) {
      if (e.result) {
        opts.log('warn', 'outbox.give_up', {
          instructionId: e.id,
          why: 'too many unacked results held',
        });
        drop(e.id);
        return;
      }
    }
  };

  return {
    addChunk(id, chunk) {
      const e = entry(id);
      e.chunks.push(chunk);
      const size = encodedSize(chunk);
      e.chunkBytes += size;
      opts.flow.add(size);
    },
    setResult(id, deviceSeq, outcome) {
      const e = entry(id);
      if (e.result) return;
      if (heldResults >= opts.maxHeldResults) giveUpOldestResult();
      e.result = { deviceSeq, outcome, sends: 0 };
      heldResults += 1;
    },
    chunkAck(id, upTo) {
      const e = entries.get(id);
      if (!e || upTo <= e.ackedUpTo) return;
      e.ackedUpTo = upTo;
      let n = 0;
      let bytes = 0;
      while (n < e.chunks.length && (e.chunks[n] as OutChunk).seq <= upTo) {
        bytes += encodedSize(e.chunks[n] as OutChunk);
        n += 1;
      }
      if (n === 0) return;
      e.chunks = e.chunks.slice(n);
      e.chunkBytes -= bytes;
      opts.flow.release(bytes);
    },
    resultAck: drop,
    discard(id, why) {
      if (!entries.has(id)) return;
      opts.log('info', 'outbox.discard', { instructionId: id, why });
      drop(id);
    },
    chunksAbove(id, watermark) {
      const e = entries.get(id);
      return e ? e.chunks.filter((c) => c.seq > watermark) : [];
    },
    takeResultForSend(id) {
      const e = entries.get(id);
      if (!e?.result) return null;
      if (e.result.sends >= opts.maxResultSends) {
        opts.log('warn', 'outbox.give_up', {
          instructionId: id,
          why: `no resultAck after ${e.result.sends} sends`,
        });
        drop(id);
        return null;
      }
      e.result.sends += 1;
      return e.result;
    },
    has: (id) => entries.has(id),
    ids: () => [...entries.keys()],
    get heldResults() {
      return heldResults;
    },
  };
};
