import { createStore, del, get, promisifyRequest, set, type UseStore } from 'idb-keyval';
import type { Kv } from './kv.ts';

// idb-keyval's default database and store names: the service worker (push issue) opens the same
// store with idb-keyval's default `get` to find room keys (D6).
const DB_NAME = 'keyval-store';
const STORE_NAME = 'keyval';

// Writes ask for strict durability where the browser supports it, so a pairing secret or an
// unconfirmed decision is on disk before we report it stored.
function strictStore(): UseStore {
  let db: Promise<IDBDatabase> | undefined;
  const open = () => {
    const request = indexedDB.open(DB_NAME);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE_NAME);
    return promisifyRequest(request);
  };
  return (txMode, callback) => {
    db ??= open();
    return db.then((database) =>
      callback(
        database.transaction(STORE_NAME, txMode, { durability: 'strict' }).objectStore(STORE_NAME),
      ),
    );
  };
}

export function makeIdbKv(): Kv {
  if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available');
  let store: UseStore;
  try {
    store = strictStore();
  } catch {
    store = createStore(DB_NAME, STORE_NAME);
  }
  return {
    get: <T>(key: string) => get<T>(key, store),
    set: (key, value) => set(key, value, store),
    del: (key) => del(key, store),
  };
}
