import { Show } from 'solid-js';
import { INSTALL_ADVICE, installAdvice, type PlatformFacts } from './install-coach.ts';
import type { Language } from '../../page-worker/language.ts';
import { PWA_STRINGS } from './strings.ts';

/** Shown in Settings above the notifications switch; renders nothing where no step is needed. */
export function InstallCoach(props: { platform: PlatformFacts; language?: Language }) {
  const s = () => PWA_STRINGS[props.language ?? 'en'];
  return (
    <Show when={installAdvice(props.platform) === INSTALL_ADVICE.iosAddToHomeScreen}>
      <section class="install-coach" aria-labelledby="install-coach-title">
        <h3 id="install-coach-title">{s().coachTitle}</h3>
        <ol>
          <li>{s().coachStep1}</li>
          <li>{s().coachStep2}</li>
          <li>{s().coachStep3}</li>
        </ol>
        <p>{s().coachNote}</p>
      </section>
    </Show>
  );
}
