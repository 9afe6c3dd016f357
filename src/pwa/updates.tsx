import { createSignal } from 'solid-js';
import { render } from 'solid-js/web';
import { languageOf } from '../../page-worker/language.ts';
import { registerServiceWorker } from './register.ts';
import { UpdatePrompt } from './UpdatePrompt.tsx';

// A8: the worker's registration (workbox-window) and the update prompt are a lazy chunk: the
// first screen needs neither, and the worker is registered a moment after the first paint. The
// prompt renders into its own root outside the app's and speaks the language the app puts on
// <html lang>.
export function startUpdates(): void {
  const flow = registerServiceWorker();
  const html = document.documentElement;
  const [language, setLanguage] = createSignal(languageOf(html.lang));
  new MutationObserver(() => setLanguage(languageOf(html.lang))).observe(html, {
    attributes: true,
    attributeFilter: ['lang'],
  });
  const root = document.getElementById('pwa-root');
  if (root) render(() => <UpdatePrompt flow={flow} language={language()} />, root);
}
