// The IndexedDB keys the page shares with the service worker (idb-keyval's default store).
// Mirrors sw/logic/store-layout.ts — sw/ and src/ may not import each other; the e2e suite
// proves they agree (the page pairs and writes settings, the worker opens and obeys).

/** PairedMachine[] — written by src/client/pairing-store.ts; the worker reads the secrets. */
export const PAIRINGS_KEY = 'pairings';
/** { showSessionTitle, language } — written here, read by the worker for every notification. */
export const PUSH_SETTINGS_KEY = 'push-settings';
/** Record<roomId, { at, kind }> — written by the worker on every push. */
export const PUSH_ACTIVITY_KEY = 'push-activity';
/**
 * E7: string[] of the room ids whose machine announced a presence policy — written by the page
 * (src/client/client.ts) from `machine.status`; the worker then offers only Deny on their
 * approvals (an assertion needs WebAuthn, which a service worker does not have).
 */
export const PRESENCE_ROOMS_KEY = 'presence-rooms';
/** PersistedPushClient — this module's own state across app starts. */
export const PUSH_CLIENT_KEY = 'push-client';

export type PushLanguage = 'en' | 'zh';
export type PushSettings = { showSessionTitle: boolean; language: PushLanguage };
export type PushActivity = { at: number; kind: string };
