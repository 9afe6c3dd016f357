// §1.5 / R2 / R3 / R10 after each helloAck: pendingInstructions is the only authority. What the
// server does not list is killed and its held frames discarded before generationAck; once active,
// what it does list is re-sent — chunks above its watermark, then results (R2/R5/R7).
import type { HelloAckFrame } from '../wire/index.ts';
import type { Connection } from './connection.ts';
import type { Outbox } from './outbox.ts';
import { resultText, sendChunk } from './outbound.ts';
import type { ServeState } from './serve-state.ts';
import type { ExecutorEvent } from './types.ts';

export const makeFence = (deps: {
  state: ServeState;
  outbox: Outbox;
  emit: (e: ExecutorEvent) => void;
}) => {
  const { state, outbox } = deps;
  let watermarks: Record<string, number> = {};
  let kept: string[] = [];
  let killed: string[] = [];

  const fence = async (ack: HelloAckFrame) => {
    const listed = new Set(ack.pendingInstructions);
    const victims = [...state.tasks.values()].filter((t) => !listed.has(t.id));
    for (const v of victims) {
      state.writtenOff.add(v.id);
      v.stop('fence');
    }
    await Promise.all(victims.map((v) => v.done.catch(() => undefined)));
    for (const id of outbox.ids()) {
      if (!listed.has(id)) {
        state.writtenOff.add(id);
        outbox.discard(id, 'not in pendingInstructions');
      }
    }
    watermarks = ack.chunkWatermarks;
    kept = [...new Set([...state.tasks.keys(), ...outbox.ids()])].filter((id) => listed.has(id));
    killed = victims.map((v) => v.id);
  };

  const resend = (c: Connection) => {
    const gen = c.gen as string;
    for (const id of outbox.ids()) {
      const wm = watermarks[id] ?? -1;
      for (const chunk of outbox.chunksAbove(id, wm)) sendChunk(c, id, chunk);
      const r = outbox.takeResultForSend(id);
      if (r) c.send(resultText(gen, id, r));
    }
    deps.emit({ type: 'active', gen, kept, killed });
  };

  return { fence, resend };
};
