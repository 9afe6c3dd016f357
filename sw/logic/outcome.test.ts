import { describe, expect, it } from 'vitest';
import type { MachineMessage } from '../../protocol/index.ts';
import { APPROVAL_OUTCOMES, outcomeFromMessage, outcomeTitle } from './outcome.ts';
import { stringsFor } from './strings.ts';

const closed = (resolution: string, approvalId = 'a1') =>
  ({ v: 1, type: 'approval.closed', ts: 0, approvalId, resolution }) as MachineMessage;

describe('N4: the notification is replaced with the outcome of the tap', () => {
  it('the machine confirms our own decision → Allowed / Denied', () => {
    expect(outcomeFromMessage(closed('allow'), 'a1', 'allow', 'r1')).toBe(
      APPROVAL_OUTCOMES.allowed,
    );
    expect(outcomeFromMessage(closed('deny'), 'a1', 'deny', 'r1')).toBe(APPROVAL_OUTCOMES.denied);
  });
  it('answered at the computer first → "Already answered on the computer"', () => {
    expect(outcomeFromMessage(closed('local'), 'a1', 'allow', 'r1')).toBe(
      APPROVAL_OUTCOMES.answeredOnComputer,
    );
  });
  it('expired, superseded or the other decision (another phone) → already closed, never "Allowed"', () => {
    for (const r of ['expired', 'superseded', 'deny']) {
      expect(outcomeFromMessage(closed(r), 'a1', 'allow', 'r1')).toBe(
        APPROVAL_OUTCOMES.alreadyClosed,
      );
    }
  });
  it('another approval, or a not-pending error about someone else, is not our answer', () => {
    expect(outcomeFromMessage(closed('allow', 'a2'), 'a1', 'allow', 'r1')).toBeNull();
    const error = (context: string) =>
      ({
        v: 1,
        type: 'error',
        ts: 0,
        message: 'not pending',
        context,
        reason: 'not-pending',
      }) as MachineMessage;
    expect(outcomeFromMessage(error('approval a2'), 'a1', 'allow', 'r1')).toBeNull();
    expect(outcomeFromMessage(error('approval a1'), 'a1', 'allow', 'r1')).toBe(
      APPROVAL_OUTCOMES.alreadyClosed,
    );
  });
  it('every outcome has its words in both languages', () => {
    for (const lang of ['en', 'zh'] as const) {
      const titles = Object.values(APPROVAL_OUTCOMES).map((o) => outcomeTitle(o, stringsFor(lang)));
      expect(new Set(titles).size).toBe(titles.length);
    }
    expect(outcomeTitle(APPROVAL_OUTCOMES.notConfirmed, stringsFor('en'))).toBe(
      'Not confirmed — open the app',
    );
  });
});
