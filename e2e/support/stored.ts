import { expect, type Page } from '@playwright/test';

/**
 * Waits until the app's offline cache (src/client/offline-cache.ts: `cache:<room>…` keys in the
 * shared IndexedDB store) holds `text`. The cache coalesces writes for CACHE_WRITE_DELAY_MS, and a
 * write begun at `pagehide` may not outlive a reload, so a test that reloads to read the cache
 * first waits for the write it depends on — the event, not a time.
 */
export async function untilCached(page: Page, text: string): Promise<void> {
  await expect
    .poll(
      () =>
        page.evaluate(
          () =>
            new Promise<string>((resolve, reject) => {
              const open = indexedDB.open('keyval-store');
              open.onerror = () => reject(open.error);
              open.onsuccess = () => {
                const db = open.result;
                if (!db.objectStoreNames.contains('keyval')) {
                  db.close();
                  resolve('');
                  return;
                }
                const store = db.transaction('keyval', 'readonly').objectStore('keyval');
                const keys = store.getAllKeys();
                const values = store.getAll();
                values.onsuccess = () => {
                  const cached = values.result.filter((_, i) =>
                    String(keys.result[i]).startsWith('cache:'),
                  );
                  db.close();
                  resolve(JSON.stringify(cached));
                };
                values.onerror = () => reject(values.error);
              };
            }),
        ),
      { message: `the offline cache to hold ${JSON.stringify(text)}` },
    )
    .toContain(text);
}
