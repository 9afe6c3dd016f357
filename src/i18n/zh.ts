import type { MessageKey } from './en.ts';
import { zhFirst } from './zh-first.ts';
import { zhScreens } from './zh-screens.ts';

// 简体中文. Typed against the English keys so a missing key is a compile error too. Kept in the
// same two parts as English (A8): zh-first.ts, loaded before the first paint when Chinese is
// chosen, and zh-screens.ts, loaded with the screens after the first. Only tests import it whole.
export const zh: Record<MessageKey, string> = { ...zhFirst, ...zhScreens };
