// Deep links into the app (issue 7 §4: every screen is reachable by URL). Hash routes, so a
// static host serves them and the precached shell answers them offline.

export type CardTarget = {
  roomId: string;
  sessionId?: string;
  approvalId?: string;
  questionId?: string;
};

const seg = (s: string) => encodeURIComponent(s);

/** `/#/machine/<roomId>/session/<sessionId>[/approval/<id> | /question/<id>]` */
export function cardUrl(target: CardTarget): string {
  let path = `/#/machine/${seg(target.roomId)}`;
  if (target.sessionId === undefined) return path;
  path += `/session/${seg(target.sessionId)}`;
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
  const prefix = `#/machine/${seg(roomId)}/session/${seg(sessionId)}`;
  return hash === prefix || hash.startsWith(`${prefix}/`);
}
