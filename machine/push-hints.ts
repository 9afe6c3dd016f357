import type { CompactPushFields, MachineMessage } from '../protocol/index.ts';

// D9 and the spec's push variant: which messages carry a compact push when no phone is online,
// and what it says. The caller decides "no phone online"; this decides the rest.
export function pushFor(
  m: MachineMessage,
  sessionTitle: (sessionId: string) => string | undefined,
): CompactPushFields | undefined {
  switch (m.type) {
    case 'approval.request':
      return { kind: 'approval', sessionId: m.sessionId, title: m.title, approvalId: m.approvalId };
    case 'question.request':
      return {
        kind: 'question',
        sessionId: m.sessionId,
        title: m.items[0]?.prompt ?? 'A question',
        questionId: m.questionId,
      };
    case 'turn.final':
      return {
        kind: 'done',
        sessionId: m.sessionId,
        title: sessionTitle(m.sessionId) ?? 'Turn finished',
      };
    case 'error':
      // A machine-wide error answers something a phone just sent: no notification needed.
      return m.sessionId === undefined
        ? undefined
        : { kind: 'error', sessionId: m.sessionId, title: m.message };
    default:
      return undefined;
  }
}
