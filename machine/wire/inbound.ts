import { isMember, open, parsePhoneMessage, PHONE_MESSAGE_TYPES } from '../../protocol/index.ts';
import type { Log } from '../log.ts';
import type { Pending } from '../approvals/pending.ts';
import type { makePhoneActions } from './phone-actions.ts';

// What arrives from the current room: opened with the room key (a frame that does not open
// marks "re-pair needed", visibly, until one opens again), parsed at the edge (D12: unknown
// types ignored and logged by type only; invalid ones answered when they name their request),
// then handed to the phone actions.

export function makeInbound(o: {
  log: Log;
  key(): Uint8Array;
  pending: Pending;
  actions: ReturnType<typeof makePhoneActions>;
  onRePair(needed: boolean): void;
}) {
  let rePairNeeded = false;

  function setRePair(needed: boolean): void {
    if (needed === rePairNeeded) return;
    rePairNeeded = needed;
    if (needed) {
      o.log(
        'error',
        're-pair-needed',
        'a frame from a phone did not decrypt with this pairing: RE-PAIR NEEDED (run with --re-pair and scan the new code)',
      );
    } else {
      o.log('info', 're-pair-cleared', 'frames decrypt again');
    }
    o.onRePair(needed);
  }

  function onPayload(payload: string): void {
    const opened = open(payload, o.key());
    if (!opened.ok) {
      o.log('warn', `decrypt-${opened.code}`, 'a frame could not be opened');
      setRePair(true);
      return;
    }
    setRePair(false);
    const parsed = parsePhoneMessage(opened.value);
    if (!parsed.ok) {
      if (parsed.ignored) {
        // D12 and forward compatibility: ignored, logged by type only.
        o.log(
          'info',
          `ignored-${parsed.code}`,
          `ignored a message of type ${JSON.stringify(parsed.type ?? '?')}`,
        );
      } else {
        o.log('warn', 'invalid-message', `${parsed.type ?? '?'}: ${parsed.message}`);
        const ty =
          parsed.type !== undefined && isMember(PHONE_MESSAGE_TYPES, parsed.type)
            ? parsed.type
            : undefined;
        // E2/E3: a respond refused at the edge (a scope or an edit with deny) names the approval
        // it was about when that one is pending here, so the phone knows which card stays open.
        const raw: unknown = opened.value;
        const approvalId =
          typeof raw === 'object' && raw !== null && 'approvalId' in raw ? raw.approvalId : null;
        const about =
          ty === 'approval.respond' && typeof approvalId === 'string'
            ? o.pending.approval(approvalId)
            : undefined;
        o.actions.invalid(ty, parsed.requestId, parsed.message, parsed.reason, about);
      }
      return;
    }
    o.actions
      .handle(parsed.value)
      .catch((e: unknown) => o.log('error', 'action-crashed', (e as Error).message));
  }

  return { payload: onPayload, rePairNeeded: () => rePairNeeded };
}
