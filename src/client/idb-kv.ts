import { createStore, del, get, promisifyRequest, set, type UseStore } from 'idb-keyval';
import { IDB_NAME, IDB_STORE, IDB_VERSION } from '../../page-worker/store-layout.ts';
import type { Kv } from './kv.ts';

// The store the service worker opens too, to find room keys (D6): page-worker/store-layout.ts.

// Writes ask for strict durability where the browser supports it, so a pairing secret or an
// unconfirmed decision is on disk before we report it stored.
function strictStore(): UseStore {
  let db: Promise<IDBDatabase> | undefined;
  const open = () => {
    const request = indexedDB.open(IDB_NAME, IDB_VERSION);
    request.onupgradeneeded = () => request.result.createObjectStore(IDB_STORE);
    return promisifyRequest(request);
  };
  return (txMode, callback) => {
    db ??= open();
    return db.then((database) =>
      callback(
        database.transaction(IDB_STORE, txMode, { durability: 'strict' }).objectStore(IDB_STORE),
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
    store = createStore(IDB_NAME, IDB_STORE);
  }
  return {
    get: <T>(key: string) => get<T>(key, store),
    set: (key, value) => set(key, value, store),
    del: (key) => del(key, store),
  };
}
