import type { Kv } from './kv.ts';
import type { TimerHandle, Timeouts } from './socket.ts';

// U2: nothing the owner typed is lost. The New-session prompt (per machine) and the reply box
// (per machine and session) are kept in IndexedDB as they are typed, so they survive a reload
// and an app restart; they are cleared only when the machine confirmed the text (D10), and a
// refused or undeliverable text is put back. One key per draft, so a keystroke rewrites only its
// own draft; the index keeps the least recently typed draft first and is bounded. Writes start
// in the next task (keystrokes of one task coalesce): a page closed right after typing must not
// depend on an unload handler finishing an IndexedDB write.
export const DRAFT_WRITE_DELAY_MS = 0;
export const MAX_DRAFTS = 50;
export const DRAFTS_INDEX_KEY = 'drafts';
const storeKey = (key: string) => `draft:${key}`;

export const draftKeys = {
  prompt: (roomId: string) => `prompt:${roomId}`,
  reply: (roomId: string, sessionId: string) => `reply:${roomId}:${sessionId}`,
};

type Stored = { text: string; at: number };

export function makeDrafts(options: {
  kv: Kv;
  timers: Timeouts;
  now: () => number;
  onChange: () => void;
}) {
  const { kv, timers, now, onChange } = options;
  let texts: Record<string, string> = {};
  let order: string[] = [];
  const dirty = new Set<string>();
  let indexDirty = false;
  let timer: TimerHandle | null = null;

  const flush = () => {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
    for (const key of dirty) {
      const text = texts[key];
      if (text === undefined) void kv.del(storeKey(key));
      else void kv.set(storeKey(key), { text, at: now() } satisfies Stored);
    }
    dirty.clear();
    if (indexDirty) void kv.set(DRAFTS_INDEX_KEY, order);
    indexDirty = false;
  };
  const schedule = () => {
    timer ??= timers.setTimeout(flush, DRAFT_WRITE_DELAY_MS);
  };
  const put = (key: string, text: string) => {
    const wasThere = key in texts;
    if (text === '') {
      if (!wasThere) return;
      const { [key]: _gone, ...rest } = texts;
      texts = rest;
      order = order.filter((k) => k !== key);
      indexDirty = true;
    } else {
      texts = { ...texts, [key]: text };
      if (order.at(-1) !== key) {
        order = [...order.filter((k) => k !== key), key];
        indexDirty = true;
      }
      while (order.length > MAX_DRAFTS) {
        const oldest = order.shift()!;
        const { [oldest]: _gone, ...rest } = texts;
        texts = rest;
        dirty.add(oldest);
      }
    }
    dirty.add(key);
    onChange();
    schedule();
  };

  return {
    async load() {
      order = ((await kv.get<string[]>(DRAFTS_INDEX_KEY)) ?? []).slice(-MAX_DRAFTS);
      const stored = await Promise.all(order.map((k) => kv.get<Stored>(storeKey(k))));
      texts = {};
      order = order.filter((k, i) => {
        const s = stored[i];
        if (s && s.text !== '') texts[k] = s.text;
        return k in texts;
      });
      onChange();
    },
    all: (): Readonly<Record<string, string>> => texts,
    get: (key: string) => texts[key] ?? '',
    set: put,
    clear: (key: string) => {
      put(key, '');
      flush();
    },
    /** F4: a forgotten machine's prompt and reply drafts go, from memory and from the disk. */
    forgetRoom(roomId: string) {
      const mine = (k: string) =>
        k === draftKeys.prompt(roomId) || k.startsWith(`reply:${roomId}:`);
      const gone = Object.keys(texts).filter(mine);
      for (const k of [...dirty].filter(mine)) dirty.delete(k);
      texts = Object.fromEntries(Object.entries(texts).filter(([k]) => !mine(k)));
      order = order.filter((k) => !mine(k));
      for (const k of new Set([...gone, ...order.filter(mine)])) void kv.del(storeKey(k));
      indexDirty = true;
      onChange();
      flush();
    },
    /** Puts a text that did not get through back in the box, before anything typed since. */
    restore(key: string, text: string) {
      const current = texts[key] ?? '';
      put(key, current === '' ? text : `${text}\n\n${current}`);
      flush();
    },
    flush,
  };
}
export type Drafts = ReturnType<typeof makeDrafts>;
