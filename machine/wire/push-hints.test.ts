import { describe, expect, it } from 'vitest';
import {
  MAX_PUSH_PAYLOAD_BYTES,
  MAX_PUSH_WHAT_CHARS,
  open,
  parseCompactPush,
  WHAT_CUT_SUFFIX,
  type MachineMessage,
  type MsgFrame,
} from '../../protocol/index.ts';
import { makeFrameSealer } from './outbound.ts';
import { pushFor } from './push-hints.ts';

// E5: the compact push of an approval says what it asks, of a question its first prompt; the
// sealed push stays within the 3 KiB push limit whatever the approval holds.

const key = new Uint8Array(32).fill(7);
const sealer = makeFrameSealer('room-e5', key);
const sessionId = '6f1c1e2a-3b4c-4d5e-8f60-718293a4b5c6';
const approvalId = '0b8e7d6c-5a4b-4c3d-9e2f-1a0b9c8d7e6f';

function sealedPush(m: MachineMessage) {
  const frame = sealer.frame(
    m,
    pushFor(m, () => 'session'),
  )!;
  const f = JSON.parse(frame) as MsgFrame;
  const opened = open(f.push!.payload, key);
  if (!opened.ok) throw new Error('the push did not open');
  const parsed = parseCompactPush(opened.value);
  if (!parsed.ok) throw new Error(parsed.message);
  return { push: parsed.value, bytes: Buffer.byteLength(f.push!.payload) };
}

const approval = (title: string, detail: string): MachineMessage => ({
  v: 1,
  type: 'approval.request',
  ts: 1,
  approvalId,
  sessionId,
  title,
  detail,
  createdAt: 1,
  tool: 'run',
});

describe('E5: a notification that says what it asks', () => {
  it('E5: an approval push carries its title and the start of its detail, line breaks flattened', () => {
    const { push } = sealedPush(approval('Run a command', 'npm test\n\nin /work/app'));
    expect(push.what).toBe('Run a command: npm test in /work/app');
  });

  it('E5: a long or escape-heavy detail is cut to 160 chars (marked) and the sealed push stays within 3 KiB', () => {
    for (const detail of [
      'x'.repeat(8000),
      '\u0001'.repeat(8000),
      '"\\'.repeat(4000),
      '漢'.repeat(3000),
    ]) {
      const { push, bytes } = sealedPush(approval('Write a.txt'.repeat(20), detail));
      expect(bytes).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
      expect(push.what!.length).toBeLessThanOrEqual(MAX_PUSH_WHAT_CHARS);
      expect(push.what!.endsWith(WHAT_CUT_SUFFIX)).toBe(true);
    }
  });

  it('E5: a question push carries its first prompt', () => {
    const { push } = sealedPush({
      v: 1,
      type: 'question.request',
      ts: 1,
      questionId: approvalId,
      sessionId,
      createdAt: 1,
      items: [
        {
          id: 'q1',
          prompt: 'Which database?',
          options: [],
          multiSelect: false,
          allowFreeText: true,
        },
        { id: 'q2', prompt: 'Second', options: [], multiSelect: false, allowFreeText: true },
      ],
    });
    expect(push).toMatchObject({ kind: 'question', what: 'Which database?' });
  });
  it('E7: the push of an approval that needs presence says so; one that does not, does not', () => {
    const needs = {
      ...approval('Run a command', 'rm -rf build'),
      presence: true,
    } as MachineMessage;
    expect(sealedPush(needs).push.presence).toBe(true);
    expect(sealedPush(approval('Run a command', 'npm test')).push).not.toHaveProperty('presence');
  });
});
