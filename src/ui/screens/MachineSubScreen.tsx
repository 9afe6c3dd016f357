import { Show, type Accessor, type JSX } from 'solid-js';
import type { MachineView } from '../../client/machine-view.ts';
import { useUi } from '../context.tsx';
import {
  AsOf,
  Header,
  PageTitle,
  Presence,
  RelayNotices,
  RepairBanner,
  WaitingBanner,
} from '../widgets.tsx';

/**
 * The frame of a screen under one machine (Machine › Phones, Machine › Rules): the bar with its
 * way back to the machine, "unknown machine" when the room is not paired, the relay and repair
 * notices, the heading, the machine's name with its presence, and how fresh its data is. The
 * screen's own content goes below, given the machine's view.
 */
export function MachineSubScreen(props: {
  roomId: string;
  title: string;
  heading: string;
  children: (view: Accessor<MachineView>) => JSX.Element;
}) {
  const ui = useUi();
  const view = () => ui.state().machines.find((m) => m.roomId === props.roomId);
  return (
    <>
      <Header title={props.title} back={{ name: 'machine', roomId: props.roomId }} />
      <main class="page">
        <Show when={view()} fallback={<p class="empty">{ui.t('machine.unknown')}</p>}>
          {(v) => (
            <>
              <RelayNotices relays={[v().relay]} />
              <RepairBanner view={v()} />
              <WaitingBanner view={v()} />
              <PageTitle>{props.heading}</PageTitle>
              <p class="status-line">
                {v().name} · <Presence view={v()} />
              </p>
              <AsOf view={v()} />
              {props.children(v)}
            </>
          )}
        </Show>
      </main>
    </>
  );
}
