// Persistent key/value storage behind one small interface, so the client logic can be driven
// by tests with an in-memory map while the app uses IndexedDB (idb-keyval). Secrets live only
// here: never in localStorage, a URL, a log or a request.
export type Kv = {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  del(key: string): Promise<void>;
};

/** An in-memory Kv for tests; values are structured-cloned like IndexedDB would. */
export function makeMemoryKv(initial: Record<string, unknown> = {}): Kv & {
  data: Map<string, unknown>;
} {
  const data = new Map<string, unknown>(Object.entries(initial));
  return {
    data,
    get: <T>(key: string) => Promise.resolve(structuredClone(data.get(key)) as T | undefined),
    set: (key, value) => {
      data.set(key, structuredClone(value));
      return Promise.resolve();
    },
    del: (key) => {
      data.delete(key);
      return Promise.resolve();
    },
  };
}
