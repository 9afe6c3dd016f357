import { describe, expect, it } from 'vitest';
import type { OutChunk } from './exec/chunker.ts';
import { makeFlowControl } from './exec/flow.ts';
import { makeOutbox } from './outbox.ts';

const chunk = (seq: number, b64 = 'AAAA'): OutChunk => ({ seq, kind: 'stdout', b64, bytes: 3 });
const make = (o: { maxHeldResults?: number; maxResultSends?: number; maxBytes?: number } = {}) => {
  const events: string[] = [];
  const flow = makeFlowControl(o.maxBytes ?? 1 << 20);
  const box = makeOutbox({
    flow,
    maxHeldResults: o.maxHeldResults ?? 10,
    maxResultSends: o.maxResultSends ?? 3,
    log: (_l, e, f) => events.push(`${e}:${String(f?.instructionId)}`),
  });
  return { box, flow, events };
};

describe('outbox (R5–R8)', () => {
  it('R7: chunks are held until a cumulative chunkAck, and re-sent from the watermark with the same bytes', () => {
    const { box } = make();
    for (let i = 0; i < 5; i += 1) box.addChunk('i1', chunk(i, `QU${i}=`));
    box.chunkAck('i1', 1);
    expect(box.chunksAbove('i1', -1).map((c) => c.seq)).toEqual([2, 3, 4]);
    expect(box.chunksAbove('i1', 3)).toEqual([chunk(4, 'QU4=')]);
    box.chunkAck('i1', 0); // an older watermark changes nothing
    expect(box.chunksAbove('i1', -1)).toHaveLength(3);
  });

  it('R5/R6: a result keeps its deviceSeq on every send, is released by resultAck, and given up after the bound', () => {
    const { box, events } = make({ maxResultSends: 2 });
    box.setResult('i1', 7, { ok: true, kind: 'void' });
    expect(box.takeResultForSend('i1')?.deviceSeq).toBe(7);
    expect(box.takeResultForSend('i1')?.deviceSeq).toBe(7);
    expect(box.takeResultForSend('i1')).toBeNull(); // third connection: given up, loudly
    expect(events).toContain('outbox.give_up:i1');
    expect(box.has('i1')).toBe(false);
    box.setResult('i2', 8, { ok: true, kind: 'void' });
    box.resultAck('i2');
    expect(box.has('i2')).toBe(false);
  });

  it('R5: the number of held results is bounded; the oldest is given up explicitly', () => {
    const { box, events } = make({ maxHeldResults: 2 });
    box.setResult('a', 0, { ok: true, kind: 'void' });
    box.setResult('b', 1, { ok: true, kind: 'void' });
    box.setResult('c', 2, { ok: true, kind: 'void' });
    expect(box.ids()).toEqual(['b', 'c']);
    expect(events).toContain('outbox.give_up:a');
  });

  it('X4: held chunk bytes block producers until acks release them', async () => {
    const { box, flow } = make({ maxBytes: 8 });
    box.addChunk('i', chunk(0, 'AAAA'));
    expect(flow.blocked()).toBe(false);
    box.addChunk('i', chunk(1, 'BBBB'));
    expect(flow.blocked()).toBe(true);
    const opened = flow.wait();
    box.chunkAck('i', 0);
    await opened;
    expect(flow.blocked()).toBe(false);
    box.discard('i', 'fence');
    expect(flow.held).toBe(0);
  });
});
