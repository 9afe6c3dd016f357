import { describe, expect, it } from 'vitest';
import {
  MAX_ENVELOPE_BYTES,
  open,
  parseMachineMessage,
  utf8ByteLength,
  type MachineMessage,
  type MsgFrame,
} from '../../protocol/index.ts';
import { clampDetail, clampSummary, makeFrameSealer, pushTagFor } from './outbound.ts';

const key = new Uint8Array(32).fill(3);
const sealer = makeFrameSealer('room-id-0123456789abcd', key);
const openFrame = (frame: string) => {
  const f = JSON.parse(frame) as MsgFrame;
  const o = open(f.payload, key);
  if (!o.ok) throw new Error(o.code);
  const m = parseMachineMessage(o.value);
  if (!m.ok) throw new Error(m.message);
  return { frame: f, message: m.value };
};

describe('every frame fits the 16 KiB envelope (D1), also when JSON escaping inflates the text', () => {
  it('approval.request: detail ≤ 8 KiB, then shrunk further when control characters escape to 6 bytes each; with a push', () => {
    const detail = clampDetail('\u0001'.repeat(20_000));
    expect(utf8ByteLength(detail)).toBeLessThanOrEqual(8192);
    const message: MachineMessage = {
      v: 1,
      type: 'approval.request',
      ts: 1,
      approvalId: 'a',
      sessionId: 's',
      title: 't',
      detail,
      createdAt: 1,
    };
    const frame = sealer.frame(message, {
      kind: 'approval',
      sessionId: 's',
      title: 't',
      approvalId: 'a',
    });
    expect(frame).not.toBeNull();
    expect(utf8ByteLength(frame!)).toBeLessThanOrEqual(MAX_ENVELOPE_BYTES);
    const { frame: f, message: back } = openFrame(frame!);
    expect(f.push?.tag).toBe('s');
    expect(back.type === 'approval.request' && back.detail.endsWith('…[truncated]')).toBe(true);
    // Shrunk in proportion, not to nothing.
    expect(back.type === 'approval.request' && back.detail.length).toBeGreaterThan(1000);
  });

  it('turn.final: summary ≤ 4 KiB; escaped text still fits', () => {
    const summary = clampSummary('"\\'.repeat(5000));
    expect(utf8ByteLength(summary)).toBeLessThanOrEqual(4096);
    const frame = sealer.frame(
      { v: 1, type: 'turn.final', ts: 1, sessionId: 's', ok: true, summary },
      { kind: 'done', sessionId: 's', title: 'x' },
    );
    expect(utf8ByteLength(frame!)).toBeLessThanOrEqual(MAX_ENVELOPE_BYTES);
  });

  it('a message with nothing to shrink that cannot fit is refused (null), never sent oversized', () => {
    const sessions = Array.from({ length: 200 }, (_, i) => ({
      sessionId: `s${i}`,
      title: 't'.repeat(80),
      cwd: '/x'.repeat(100),
      state: 'done' as const,
      lastActivity: 1,
      dispatched: true,
    }));
    expect(sealer.frame({ v: 1, type: 'session.snapshot', ts: 1, sessions })).toBeNull();
  });

  it('push tags collapse per session: the UUID without hyphens (≤ 32 chars, RFC 8030 Topic-safe)', () => {
    expect(pushTagFor('c067d2a7-647f-4251-927a-22a7fc2bf5b4')).toBe(
      'c067d2a7647f4251927a22a7fc2bf5b4',
    );
    expect(pushTagFor('c067d2a7-647f-4251-927a-22a7fc2bf5b4')).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
  });
});
