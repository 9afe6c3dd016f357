// Deep links into the app (A4: every screen is reachable by URL). The app's hash routes
// (src/client/router.ts: `#/m/<room>/s/<session>[/approval|question/<id>]`);
// a static host serves them and the precached shell answers them offline.

export type CardTarget = {
  roomId: string;
  sessionId?: string;
  approvalId?: string;
  questionId?: string;
};

const seg = (s: string) => encodeURIComponent(s);

/** `/#/m/<roomId>/s/<sessionId>[/approval/<id> | /question/<id>]` */
export function cardUrl(target: CardTarget): string {
  let path = `/#/m/${seg(target.roomId)}`;
  if (target.sessionId === undefined) return path;
  path += `/s/${seg(target.sessionId)}`;
  if (target.approvalId !== undefined) return `${path}/approval/${seg(target.approvalId)}`;
  if (target.questionId !== undefined) return `${path}/question/${seg(target.questionId)}`;
  return path;
}

/** The app's home (inbox): where an unreadable push leads. */
export const HOME_URL = '/#/';

/** True when `url` (a window's full URL) shows that session of that machine, or a card in it. */
export function showsSession(url: string, roomId: string, sessionId: string): boolean {
  let hash: string;
  try {
    hash = new URL(url).hash;
  } catch {
    return false;
  }
  const prefix = `#/m/${seg(roomId)}/s/${seg(sessionId)}`;
  return hash === prefix || hash.startsWith(`${prefix}/`);
}
