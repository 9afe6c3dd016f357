// English, the reference locale: every other locale must have exactly these keys
// (src/i18n/i18n.test.ts). `{name}` placeholders are filled by `t`. Kept in two parts so that the
// first chunk holds only what the first screen shows (A8): en-first.ts, and en-screens.ts (a lazy
// chunk, loaded with the screens after the first). Only tests and types import this whole.
import { enFirst } from './en-first.ts';
import { enScreens } from './en-screens.ts';

export const en = { ...enFirst, ...enScreens } as const;

export type MessageKey = keyof typeof en;
