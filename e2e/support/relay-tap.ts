// A tap on the app's own socket to the relay (Playwright's routeWebSocket, the real relay behind
// it): every frame passes unless the test holds it. The test opens what the page sealed with the
// room key it knows from the pairing code — exactly what anyone who copied the secret and watched
// the network could do — so the app needs no hook and is not changed for it.
import type { Page, WebSocketRoute } from '@playwright/test';
import { open, parseClientFrame } from '../../protocol/index.ts';

type Message = Record<string, unknown>;
export type Tapped = { room: string; message: Message; raw: string };

export type RelayTap = {
  /** Every phone→machine message the page sent and the tap could open, in order. */
  sent: Tapped[];
  /** Messages matching this stop at the tap from now on: the relay never sees them. */
  hold(match: (m: Message) => boolean): void;
  held: Tapped[];
  /** Sends a frame again over the page's current connection, byte for byte. */
  resend(raw: string): void;
};

export async function tapRelay(
  page: Page,
  relayUrl: string,
  keys: ReadonlyMap<string, Uint8Array>,
): Promise<RelayTap> {
  const host = new URL(relayUrl).host;
  const sent: Tapped[] = [];
  const held: Tapped[] = [];
  let holding: (m: Message) => boolean = () => false;
  let server: WebSocketRoute | null = null;
  const opened = (raw: string): Tapped | null => {
    const frame = parseClientFrame(raw);
    if (!frame.ok || frame.value.kind !== 'msg') return null;
    const key = keys.get(frame.value.room);
    const message = key ? open(frame.value.payload, key) : null;
    if (!message?.ok) return null;
    // E9: the app seals every action as phone.sealed; the tap reads the message inside (the
    // room key is enough to read it, not to make one).
    const value = message.value as Message;
    const inner =
      value.type === 'phone.sealed' ? (JSON.parse(value.message as string) as Message) : value;
    return { room: frame.value.room, message: inner, raw };
  };
  await page.routeWebSocket(
    (url) => url.host === host,
    (ws) => {
      const toRelay = ws.connectToServer();
      server = toRelay;
      ws.onMessage((data) => {
        const tapped = typeof data === 'string' ? opened(data) : null;
        if (tapped) sent.push(tapped);
        if (tapped && holding(tapped.message)) held.push(tapped);
        else toRelay.send(data);
      });
    },
  );
  return {
    sent,
    held,
    hold: (match) => {
      holding = match;
    },
    resend: (raw) => {
      if (!server) throw new Error('relay tap: the page has no connection');
      server.send(raw);
    },
  };
}
