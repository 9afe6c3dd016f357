// The one IndexedDB store the page and the service worker share: idb-keyval's default database
// and object store, opened by the page with strict durability (src/client/idb-kv.ts) and by the
// worker with idb-keyval (sw/keystore.ts). docs/push.md lists every key, its writer and reader.
// The page keeps its own keys in the same store too (the outbox, drafts, the offline cache, the
// push client's state); none of them may reuse a name below.

export const IDB_NAME = 'keyval-store';
/** Neither side ever upgrades the database: version 1 is the one idb-keyval creates. */
export const IDB_VERSION = 1;
export const IDB_STORE = 'keyval';

/** PairedMachine[] — written by the page's pairing store; the worker reads the secrets (D6). */
export const PAIRINGS_KEY = 'pairings';
/** PushSettings (push-settings.ts) — written by the page's notification settings. */
export const PUSH_SETTINGS_KEY = 'push-settings';
/** Record<roomId, PushActivity> — written by the worker on every push it receives. */
export const PUSH_ACTIVITY_KEY = 'push-activity';
