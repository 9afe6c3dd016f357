import { answerWhereAreYou } from './where.ts';
import './pwa.css';

// A separate entry in index.html, so the worker and the update prompt run whatever the app's
// screens do (and load nothing of them). The worker's "where are you?" is answered from the
// start; the registration and the update prompt are a lazy chunk (A8, updates.tsx).
answerWhereAreYou();
void import('./updates.tsx').then(({ startUpdates }) => startUpdates());
