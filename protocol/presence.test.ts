import { describe, expect, it } from 'vitest';
import { decisionChallengeText, dispatchChallengeText, dispatchNeedsPresence } from './presence.ts';

describe('E7: the challenge text a decision signs', () => {
  it('E7: a decision is prefix, approvalId, decision, requestId and ts on their own lines', () => {
    expect(decisionChallengeText('a-1', 'allow', 'r-3', 1767225600000)).toBe(
      'dsh-dispatch/decision\na-1\nallow\nr-3\n1767225600000',
    );
    expect(decisionChallengeText('a-1', 'deny', 'r-3', 0)).toBe(
      'dsh-dispatch/decision\na-1\ndeny\nr-3\n0',
    );
  });
  it('E7: a full-access dispatch signs dispatch\\nfull in place of the approval', () => {
    expect(dispatchChallengeText('r-4', 1767225600000)).toBe(
      'dsh-dispatch/decision\ndispatch\nfull\nr-4\n1767225600000',
    );
  });
  it('E7: different decisions never share a text: a line break or control character is refused', () => {
    // Without the refusal, these two would sign the same bytes.
    expect(decisionChallengeText('a\nallow', 'deny', 'r', 1)).toBeNull();
    expect(decisionChallengeText('a', 'allow', 'r\n1', 1)).toBeNull();
    expect(decisionChallengeText('a\u0000', 'allow', 'r', 1)).toBeNull();
    expect(dispatchChallengeText('r\r', 1)).toBeNull();
  });
  it.each([
    ['an empty id', '', 1],
    ['a fractional ts', 'a', 1.5],
    ['a negative ts', 'a', -1],
    ['an unsafe ts', 'a', 2 ** 53],
    ['a ts that is not a number', 'a', '1'],
  ])('E7: %s gives no text (the machine answers presence-invalid)', (_w, id, ts) => {
    expect(decisionChallengeText(id, 'allow', id, ts as number)).toBeNull();
    expect(dispatchChallengeText(id, ts as number)).toBeNull();
  });
  it('E7: an unknown decision gives no text', () => {
    expect(decisionChallengeText('a', 'maybe' as 'allow', 'r', 1)).toBeNull();
  });
  it('E7: a dispatch needs presence only with full access under a presence policy', () => {
    expect(dispatchNeedsPresence('risky', 'full')).toBe(true);
    expect(dispatchNeedsPresence('all', 'full')).toBe(true);
    expect(dispatchNeedsPresence('all', 'standard')).toBe(false);
    expect(dispatchNeedsPresence('all', undefined)).toBe(false);
    expect(dispatchNeedsPresence(undefined, 'full')).toBe(false);
  });
});
