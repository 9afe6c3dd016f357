import { PUSH_OUTCOMES, type PushOutcome, type PushReceipt } from '../../../protocol/index.ts';
import type { Language } from '../../../page-worker/language.ts';

// Settings › Notifications, per machine: what happened to that machine's last notification. The
// machine learns it from the relay (which answers only failures) and sends it in the sealed
// machine.status. Success is "sent" — the push service accepted it — never "delivered": nobody on
// the path can see whether a device showed it.

export const RECEIPT_TONES = { ok: 'ok', problem: 'problem' } as const;
export type ReceiptTone = (typeof RECEIPT_TONES)[keyof typeof RECEIPT_TONES];

const TONE_OF = {
  [PUSH_OUTCOMES.sent]: RECEIPT_TONES.ok,
  [PUSH_OUTCOMES['no-subscribers']]: RECEIPT_TONES.problem,
  [PUSH_OUTCOMES.failed]: RECEIPT_TONES.problem,
  [PUSH_OUTCOMES.disabled]: RECEIPT_TONES.problem,
  [PUSH_OUTCOMES['rate-limited']]: RECEIPT_TONES.problem,
} as const satisfies Record<PushOutcome, ReceiptTone>;

type Words = {
  line: string;
  failedCount: string;
  outcomes: Record<PushOutcome, string>;
  hints: Partial<Record<PushOutcome, string>>;
};

export const RECEIPT_STRINGS = {
  en: {
    line: 'Last notification from {machine}: {what} ({time})',
    failedCount: 'not delivered to {failed} of {total} devices — the push service refused it',
    outcomes: {
      sent: 'sent — the relay reported no failure',
      'no-subscribers': 'not delivered — no device subscribed',
      failed: 'not delivered — the push service refused it',
      disabled: 'not delivered — the relay has Web Push turned off',
      'rate-limited': 'not delivered — too many notifications in a short time',
    },
    hints: {
      'no-subscribers':
        'Turn on notifications on this device. If they are on, turn them off and on again to re-subscribe.',
      failed:
        'Turn notifications off and on again to re-subscribe this device. If it keeps failing, the push service may be down.',
      disabled: 'The relay’s operator has to configure Web Push (a VAPID contact).',
      'rate-limited': 'Nothing to do: notifications resume by themselves within a minute.',
    },
  },
  zh: {
    line: '来自 {machine} 的上一条通知：{what}（{time}）',
    failedCount: '未送达 {total} 台设备中的 {failed} 台 — 推送服务拒绝了它',
    outcomes: {
      sent: '已发出 — 中继未报告失败',
      'no-subscribers': '未送达 — 没有设备订阅',
      failed: '未送达 — 推送服务拒绝了它',
      disabled: '未送达 — 中继未开启 Web Push',
      'rate-limited': '未送达 — 短时间内通知过多',
    },
    hints: {
      'no-subscribers': '请在此设备上开启通知。如果已开启，请先关闭再开启以重新订阅。',
      failed: '请先关闭再开启通知，让此设备重新订阅。如果一直失败，推送服务可能出了故障。',
      disabled: '需要中继的运营者配置 Web Push（VAPID 联系方式）。',
      'rate-limited': '无需操作：一分钟内通知会自动恢复。',
    },
  },
} as const satisfies Record<Language, Words>;

export type ReceiptView = { tone: ReceiptTone; text: string; hint?: string };

const fill = (template: string, values: Record<string, string | number>) =>
  template.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k] ?? ''));

/** The words for one machine's receipt; `time` formats the machine's timestamp. */
export function describeReceipt(
  language: Language,
  machine: string,
  receipt: PushReceipt,
  time: (ms: number) => string,
): ReceiptView {
  const words: Words = RECEIPT_STRINGS[language];
  const what =
    receipt.outcome === PUSH_OUTCOMES.failed && receipt.failed !== undefined
      ? fill(words.failedCount, { failed: receipt.failed, total: receipt.total ?? receipt.failed })
      : words.outcomes[receipt.outcome];
  const hint = words.hints[receipt.outcome];
  return {
    tone: TONE_OF[receipt.outcome],
    text: fill(words.line, { machine, what, time: time(receipt.at) }),
    ...(hint ? { hint } : {}),
  };
}
