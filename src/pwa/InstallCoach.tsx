import { Show } from 'solid-js';
import { INSTALL_ADVICE, installAdvice, type PlatformFacts } from './install-coach.ts';

/** Shown in Settings above the notifications switch; renders nothing where no step is needed. */
export function InstallCoach(props: { platform: PlatformFacts }) {
  return (
    <Show when={installAdvice(props.platform) === INSTALL_ADVICE.iosAddToHomeScreen}>
      <section class="install-coach" aria-labelledby="install-coach-title">
        <h3 id="install-coach-title">Install the app to get notifications</h3>
        <ol>
          <li>Tap the Share button in Safari.</li>
          <li>Choose “Add to Home Screen”.</li>
          <li>Open dsh dispatch from the Home Screen and pair your machine there.</li>
        </ol>
        <p>
          iPhone and iPad deliver notifications only to the installed app, and it keeps its own
          storage: machines paired here in Safari are not visible to it.
        </p>
      </section>
    </Show>
  );
}
