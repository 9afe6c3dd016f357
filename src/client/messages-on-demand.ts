import type * as Messages from '../../protocol/messages.ts';

// A8: the parsers of machine messages (protocol/messages.ts and what it imports: every message's
// and every extension's parser, ~4 KiB gzip) run only on a frame the crypto library opened —
// never to draw the first screen, whose views come from IndexedDB. The app build resolves
// protocol/'s `./messages.ts` to this module (vite.config.ts) and loads the real one with the
// crypto library (loadNacl, awaited through ClientDeps.loadCrypto before any room connects). A
// parse before it fails loudly, never silently.
export * from '../../protocol/message-types.ts';
export {
  MAX_ALLOWED_ROOTS,
  MAX_OPEN_CARDS,
  MAX_QUESTION_ITEMS,
  MAX_QUESTION_OPTIONS,
  MAX_SESSIONS,
  MAX_STEPS,
  MAX_TRANSCRIPT_ENTRIES,
} from '../../protocol/message-parts.ts';
export type { MessageIgnored, MessageInvalid, MessageResult } from '../../protocol/messages.ts';

type MessagesApi = typeof Messages;

let real: MessagesApi | null = null;
let loading: Promise<void> | null = null;

/** Loads protocol/messages.ts once; resolves when frames may be parsed. */
export function loadMessages(): Promise<void> {
  loading ??= import('../../protocol/messages.ts').then((m) => {
    real = m;
  });
  return loading;
}

export const MESSAGES_NOT_LOADED = 'A8: a message was parsed before loadNacl() resolved';

const need = (): MessagesApi => {
  if (real) return real;
  throw new Error(MESSAGES_NOT_LOADED);
};

export const parseMachineMessage: MessagesApi['parseMachineMessage'] = (value) =>
  need().parseMachineMessage(value);
export const parsePhoneMessage: MessagesApi['parsePhoneMessage'] = (value) =>
  need().parsePhoneMessage(value);
