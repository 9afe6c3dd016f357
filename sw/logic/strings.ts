import type { Language } from '../../page-worker/language.ts';

// Every string the worker shows, in the app's two languages (A7). Only the worker shows them, so
// they stay out of the page's bundle, and the page's words stay out of the worker's; the page
// stores the chosen language in the push settings (page-worker/push-settings.ts).
export type SwStrings = {
  approvalTitle: (machine: string) => string;
  questionTitle: (machine: string) => string;
  doneTitle: (machine: string) => string;
  errorTitle: (machine: string) => string;
  approvalBody: string;
  questionBody: string;
  doneBody: string;
  errorBody: string;
  activityTitle: (machine: string) => string;
  activityBody: string;
  repairTitle: string;
  repairBody: string;
  allow: string;
  deny: string;
  sendingAllow: string;
  sendingDeny: string;
  allowed: string;
  denied: string;
  answeredOnComputer: string;
  alreadyClosed: string;
  notConfirmed: string;
  unknownMachine: string;
};

const EN: SwStrings = {
  approvalTitle: (m) => `Approval needed · ${m}`,
  questionTitle: (m) => `Question · ${m}`,
  doneTitle: (m) => `Finished · ${m}`,
  errorTitle: (m) => `Error · ${m}`,
  approvalBody: 'A tool call is waiting for your decision.',
  questionBody: 'The agent is asking you something.',
  doneBody: 'A session finished its turn.',
  errorBody: 'A session stopped with an error.',
  activityTitle: (m) => `New activity · ${m}`,
  activityBody: 'Open the app to see it.',
  repairTitle: 'Re-pair needed',
  repairBody: 'A notification could not be opened with any paired machine’s key. Open the app.',
  allow: 'Allow',
  deny: 'Deny',
  sendingAllow: 'Sending Allow…',
  sendingDeny: 'Sending Deny…',
  allowed: 'Allowed',
  denied: 'Denied',
  answeredOnComputer: 'Already answered on the computer',
  alreadyClosed: 'No longer waiting — open the app',
  notConfirmed: 'Not confirmed — open the app',
  unknownMachine: 'your machine',
};

const ZH: SwStrings = {
  approvalTitle: (m) => `需要批准 · ${m}`,
  questionTitle: (m) => `提问 · ${m}`,
  doneTitle: (m) => `已完成 · ${m}`,
  errorTitle: (m) => `出错 · ${m}`,
  approvalBody: '有一个工具调用在等待你的决定。',
  questionBody: '智能体在向你提问。',
  doneBody: '一个会话完成了本轮。',
  errorBody: '一个会话因错误而停止。',
  activityTitle: (m) => `新动态 · ${m}`,
  activityBody: '打开应用查看。',
  repairTitle: '需要重新配对',
  repairBody: '一条通知无法用任何已配对机器的密钥打开。请打开应用。',
  allow: '允许',
  deny: '拒绝',
  sendingAllow: '正在发送“允许”…',
  sendingDeny: '正在发送“拒绝”…',
  allowed: '已允许',
  denied: '已拒绝',
  answeredOnComputer: '已在电脑上处理',
  alreadyClosed: '已不再等待 — 打开应用',
  notConfirmed: '未确认 — 打开应用',
  unknownMachine: '你的机器',
};

export const stringsFor = (language: Language): SwStrings => (language === 'zh' ? ZH : EN);
