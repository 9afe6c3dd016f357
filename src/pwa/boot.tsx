import { createSignal } from 'solid-js';
import { render } from 'solid-js/web';
import { registerServiceWorker } from './register.ts';
import { languageOf } from '../../page-worker/language.ts';
import { UpdatePrompt } from './UpdatePrompt.tsx';
import { answerWhereAreYou } from './where.ts';
import './pwa.css';

// A separate entry in index.html, so the worker and the update prompt run whatever the app's
// screens do (and load nothing of them). It renders into its own root outside the app's and
// speaks the language the app puts on <html lang>.
answerWhereAreYou();
const flow = registerServiceWorker();
const html = document.documentElement;
const [language, setLanguage] = createSignal(languageOf(html.lang));
new MutationObserver(() => setLanguage(languageOf(html.lang))).observe(html, {
  attributes: true,
  attributeFilter: ['lang'],
});
const root = document.getElementById('pwa-root');
if (root) render(() => <UpdatePrompt flow={flow} language={language()} />, root);
