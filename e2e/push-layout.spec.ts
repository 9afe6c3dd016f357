import { expect, test } from '@playwright/test';
import * as pageLayout from '../src/client/push/store-layout.ts';
import * as pageMessages from '../src/client/push/sw-messages.ts';
import * as workerLayout from '../sw/logic/store-layout.ts';
import * as workerMessages from '../sw/logic/sw-messages.ts';

// sw/ and src/ may not import each other, so the names they share through IndexedDB and
// postMessage are written twice; this is the one place that sees both (no browser needed).

test('Store layout: the page and the worker use the same IndexedDB keys', () => {
  for (const key of ['PAIRINGS_KEY', 'PUSH_SETTINGS_KEY', 'PUSH_ACTIVITY_KEY'] as const) {
    expect(pageLayout[key]).toBe(workerLayout[key]);
  }
  // The app's pairing store writes this key (src/client/pairing-store.ts).
  expect(workerLayout.PAIRINGS_KEY).toBe('pairings');
});

test('Worker messages: the page and the worker use the same message types', () => {
  for (const type of [
    'PUSH_RECEIVED',
    'SUBSCRIPTION_CHANGED',
    'APPROVAL_ANSWERED',
    'NAVIGATE',
    'RUN_NOTIFICATION_ACTION',
    'WHERE_ARE_YOU',
  ] as const) {
    expect(pageMessages[type]).toBe(workerMessages[type]);
  }
});
