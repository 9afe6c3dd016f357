import type { MessageKey } from '../i18n/en.ts';
import { LINK_STATES, type LinkStatus } from './connection.ts';
import type { MachineView } from './machine-view.ts';

// The one sentence a machine's indicator says, always the truth about the weakest link:
// the relay socket first, then the machine's presence in the room.
export type PresenceLine = { key: MessageKey; since?: number; tone: 'ok' | 'warn' | 'bad' };

export function presenceOf(link: LinkStatus | undefined, view: MachineView): PresenceLine {
  if (!link || link.state === LINK_STATES.connecting)
    return { key: 'link.connecting', tone: 'warn' };
  if (link.state === LINK_STATES.offline)
    return { key: 'link.offline', since: link.since, tone: 'bad' };
  if (!view.machineOnline)
    return view.machineSince === null
      ? { key: 'machine.offlineUnknown', tone: 'bad' }
      : { key: 'machine.offline', since: view.machineSince, tone: 'bad' };
  return { key: 'machine.online', tone: 'ok' };
}

/** Offline reading: what is shown is old when the link or the machine is away. */
export function isStale(line: PresenceLine): boolean {
  return line.tone !== 'ok';
}
