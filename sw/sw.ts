// The service worker entry: one module per concern, wired here and nowhere else.
import { installNotificationClick } from './notification-click.ts';
import { installPrecache } from './precache.ts';
import { installPush } from './push.ts';
import { installSubscriptionChange } from './subscription-change.ts';
import { installUpdate } from './update.ts';

installUpdate();
installPrecache();
installPush();
installNotificationClick();
installSubscriptionChange();
