// The service worker entry: one module per concern, wired here and nowhere else.
import { installPrecache } from './precache.ts';
import { installUpdate } from './update.ts';

installUpdate();
installPrecache();
