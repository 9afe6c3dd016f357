import { pushWhat, type CompactPushFields, type MachineMessage } from '../../protocol/index.ts';

// D9 and the spec's push variant: which messages carry a compact push when no phone is online,
// and what it says. The caller decides "no phone online"; this decides the rest. E5: an approval's
// push says what it asks (`what`: its title and the start of its detail, `Run a command: npm
// test in /…`), a question's its first prompt; compactPush clamps `what` to 160 chars and shrinks
// it first so the sealed push always fits the 3 KiB limit.
export function pushFor(
  m: MachineMessage,
  sessionTitle: (sessionId: string) => string | undefined,
): CompactPushFields | undefined {
  switch (m.type) {
    case 'approval.request':
      return {
        kind: 'approval',
        sessionId: m.sessionId,
        title: m.title,
        approvalId: m.approvalId,
        what: pushWhat(m.title, m.detail),
        // E7: the worker offers Deny only for an approval whose Allow needs presence.
        ...(m.presence === true ? { presence: true as const } : {}),
      };
    case 'question.request': {
      const prompt = m.items[0]?.prompt ?? 'A question';
      return {
        kind: 'question',
        sessionId: m.sessionId,
        title: prompt,
        questionId: m.questionId,
        what: pushWhat(prompt),
      };
    }
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
