import type { Language } from '../../../page-worker/language.ts';
import {
  MACHINE_PUSH_STATES,
  PUSH_ERRORS,
  type MachinePushState,
  type PushErrorCode,
} from './push-client.ts';

// Settings › Notifications in the app's two languages (A7).
export const PUSH_UI_STRINGS = {
  en: {
    title: 'Notifications',
    turnOn: 'Turn on notifications',
    turnOff: 'Turn off notifications',
    on: 'Notifications are on for this device.',
    privacy: 'Show the session title in notifications (it is visible on the lock screen)',
    lastPush: 'last push',
    [MACHINE_PUSH_STATES.off]: 'Off',
    [MACHINE_PUSH_STATES.pending]: 'On — registers when connected',
    [MACHINE_PUSH_STATES.subscribed]: 'On',
    [MACHINE_PUSH_STATES.failed]: 'Not available',
    [PUSH_ERRORS.unsupported]: 'This browser cannot receive push notifications here.',
    [PUSH_ERRORS.permissionDenied]:
      'Notifications are blocked for this app in the browser settings.',
    [PUSH_ERRORS.permissionDismissed]: 'The permission prompt was dismissed.',
    [PUSH_ERRORS.vapidUnreachable]: 'The relay could not be reached to set up notifications.',
    [PUSH_ERRORS.vapidInvalid]: 'The relay sent no valid notification key.',
    [PUSH_ERRORS.badRelayUrl]: 'This machine’s relay address is not valid.',
    [PUSH_ERRORS.subscribeFailed]: 'The browser could not subscribe to notifications.',
    [PUSH_ERRORS.otherRelayKey]:
      'This machine uses another relay; notifications come from one relay at a time.',
  },
  zh: {
    title: '通知',
    turnOn: '开启通知',
    turnOff: '关闭通知',
    on: '此设备已开启通知。',
    privacy: '在通知中显示会话标题（锁屏上可见）',
    lastPush: '上次推送',
    [MACHINE_PUSH_STATES.off]: '关闭',
    [MACHINE_PUSH_STATES.pending]: '已开启 — 连接后注册',
    [MACHINE_PUSH_STATES.subscribed]: '已开启',
    [MACHINE_PUSH_STATES.failed]: '不可用',
    [PUSH_ERRORS.unsupported]: '此浏览器在这里无法接收推送通知。',
    [PUSH_ERRORS.permissionDenied]: '浏览器设置中已阻止此应用的通知。',
    [PUSH_ERRORS.permissionDismissed]: '权限请求已被关闭。',
    [PUSH_ERRORS.vapidUnreachable]: '无法连接中继以设置通知。',
    [PUSH_ERRORS.vapidInvalid]: '中继没有发送有效的通知密钥。',
    [PUSH_ERRORS.badRelayUrl]: '此机器的中继地址无效。',
    [PUSH_ERRORS.subscribeFailed]: '浏览器无法订阅通知。',
    [PUSH_ERRORS.otherRelayKey]: '此机器使用另一个中继；通知一次只能来自一个中继。',
  },
} as const satisfies Record<Language, Record<string, string>>;

export const machineStateLabel = (language: Language, state: MachinePushState): string =>
  PUSH_UI_STRINGS[language][state];

export const errorLabel = (language: Language, code: PushErrorCode): string =>
  PUSH_UI_STRINGS[language][code];
