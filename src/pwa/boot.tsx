import { render } from 'solid-js/web';
import { registerServiceWorker } from './register.ts';
import { UpdatePrompt } from './UpdatePrompt.tsx';
import { answerWhereAreYou } from './where.ts';
import './pwa.css';

// A separate entry in index.html, so the worker and the update prompt run whatever the app's
// screens do (and load nothing of them). It renders into its own root outside the app's.
answerWhereAreYou();
const flow = registerServiceWorker();
const root = document.getElementById('pwa-root');
if (root) render(() => <UpdatePrompt flow={flow} />, root);
