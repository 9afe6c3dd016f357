import { describe, expect, it } from 'vitest';
import {
  approvalContentHash,
  decisionChallengeText,
  dispatchChallengeText,
  dispatchContentHash,
  dispatchNeedsPresence,
  editedHash,
  phoneAuthorityChallengeText,
} from './presence.ts';

const content = approvalContentHash({ tool: 'run', title: 'Run', detail: 'npm test' });
const decision = {
  roomId: 'room-1',
  approvalId: 'a-1',
  decision: 'allow' as const,
  requestId: 'r-3',
  ts: 1767225600000,
  content,
};

describe('E7/E9: the challenge text a decision signs', () => {
  it('E9: a decision is prefix, room, approval, decision, request, ts, content, scope and edited on their own lines', () => {
    expect(decisionChallengeText(decision)).toBe(
      `dsh-dispatch/decision\nroom-1\na-1\nallow\nr-3\n1767225600000\n${content}\n-\n-`,
    );
    expect(decisionChallengeText({ ...decision, scope: 'session', edited: 'npm test -w a' })).toBe(
      `dsh-dispatch/decision\nroom-1\na-1\nallow\nr-3\n1767225600000\n${content}\nsession\n${editedHash('npm test -w a')}`,
    );
  });
  it('E9: the content hash changes with every field the card shows (tool, title, detail, editable value)', () => {
    const base = {
      tool: 'run',
      title: 'Run',
      detail: 'npm test',
      editable: { label: 'Command', value: 'npm test' },
    };
    const h = approvalContentHash(base);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(approvalContentHash({ ...base, tool: 'write' })).not.toBe(h);
    expect(approvalContentHash({ ...base, title: 'Run!' })).not.toBe(h);
    expect(approvalContentHash({ ...base, detail: 'rm -rf /' })).not.toBe(h);
    expect(approvalContentHash({ ...base, editable: { label: 'Command', value: 'ls' } })).not.toBe(
      h,
    );
    // A line break moved between fields is another content (joined as a JSON array, not by \n).
    expect(approvalContentHash({ title: 'a\nb', detail: 'c' })).not.toBe(
      approvalContentHash({ title: 'a', detail: 'b\nc' }),
    );
  });
  it('E9: a full-access dispatch signs its room and content', () => {
    const c = dispatchContentHash({ prompt: 'go', worktree: false, access: 'full', cwd: '/w' });
    expect(dispatchChallengeText({ roomId: 'room-1', requestId: 'r-4', ts: 5, content: c })).toBe(
      `dsh-dispatch/decision\nroom-1\ndispatch\nfull\nr-4\n5\n${c}\n-\n-`,
    );
    expect(
      dispatchContentHash({ prompt: 'go', worktree: true, access: 'full', cwd: '/w' }),
    ).not.toBe(c);
  });
  it('E9: authority over phones names the action and the target', () => {
    expect(
      phoneAuthorityChallengeText({
        roomId: 'room-1',
        action: 'phone.revoke',
        target: 'p-2',
        requestId: 'r-5',
        ts: 7,
      }),
    ).toBe('dsh-dispatch/decision\nroom-1\nphone.revoke\np-2\nr-5\n7\n-\n-\n-');
  });
  it('E7: different decisions never share a text: a line break or control character is refused', () => {
    expect(decisionChallengeText({ ...decision, approvalId: 'a\nallow' })).toBeNull();
    expect(decisionChallengeText({ ...decision, requestId: 'r\n1' })).toBeNull();
    expect(decisionChallengeText({ ...decision, roomId: 'x\u0000' })).toBeNull();
    expect(decisionChallengeText({ ...decision, content: 'not-a-hash' })).toBeNull();
    expect(dispatchChallengeText({ roomId: 'r', requestId: 'r\r', ts: 1, content })).toBeNull();
    expect(
      phoneAuthorityChallengeText({
        roomId: 'r',
        action: 'phone.revoke',
        target: 'p\n',
        requestId: 'q',
        ts: 1,
      }),
    ).toBeNull();
  });
  it.each([
    ['an empty id', '', 1],
    ['a fractional ts', 'a', 1.5],
    ['a negative ts', 'a', -1],
    ['an unsafe ts', 'a', 2 ** 53],
    ['a ts that is not a number', 'a', '1'],
  ])('E7: %s gives no text (the machine answers presence-invalid)', (_w, id, ts) => {
    expect(decisionChallengeText({ ...decision, approvalId: id, ts: ts as number })).toBeNull();
    expect(
      dispatchChallengeText({ roomId: 'r', requestId: id, ts: ts as number, content }),
    ).toBeNull();
  });
  it('E7: an unknown decision gives no text', () => {
    expect(decisionChallengeText({ ...decision, decision: 'maybe' as 'allow' })).toBeNull();
  });
  it('E7: a dispatch needs presence only with full access under a presence policy', () => {
    expect(dispatchNeedsPresence('risky', 'full')).toBe(true);
    expect(dispatchNeedsPresence('all', 'full')).toBe(true);
    expect(dispatchNeedsPresence('all', 'standard')).toBe(false);
    expect(dispatchNeedsPresence('all', undefined)).toBe(false);
    expect(dispatchNeedsPresence(undefined, 'full')).toBe(false);
  });
});
