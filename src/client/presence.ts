import type { MessageKey } from '../i18n/en.ts';
import type { NetworkState } from './client.ts';
import { LINK_STATES, type LinkStatus } from './connection.ts';
import type { MachineView } from './machine-view.ts';

// The one sentence a machine's indicator says, always the truth about the weakest link: this
// phone's network first ("You are offline"), then the relay socket ("Can't reach the relay"),
// then the machine's presence in the room ("demo offline since 14:02") — U4.offline: the three
// are worded differently because each asks something different of the owner.
export type PresenceLine = {
  key: MessageKey;
  since?: number;
  tone: 'ok' | 'warn' | 'bad';
  /** Which link is down, for the banner and its "Reconnect now". */
  down: 'none' | 'network' | 'relay' | 'machine';
};

export function presenceOf(
  link: LinkStatus | undefined,
  view: MachineView,
  network: NetworkState = 'online',
): PresenceLine {
  if (network === 'offline') return { key: 'truth.youOffline', tone: 'bad', down: 'network' };
  if (!link || link.state === LINK_STATES.connecting)
    return { key: 'link.connecting', tone: 'warn', down: 'none' };
  if (link.state === LINK_STATES.offline)
    return { key: 'truth.relayDown', since: link.since, tone: 'bad', down: 'relay' };
  if (!view.machineOnline)
    return view.machineSince === null
      ? { key: 'truth.machineOfflineUnknown', tone: 'bad', down: 'machine' }
      : { key: 'truth.machineOffline', since: view.machineSince, tone: 'bad', down: 'machine' };
  return { key: 'machine.online', tone: 'ok', down: 'none' };
}

/** Offline reading: what is shown is old when the link or the machine is away. */
export function isStale(line: PresenceLine): boolean {
  return line.tone !== 'ok';
}
