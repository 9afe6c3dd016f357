// U4 design pass: one small inline SVG set (24 × 24, stroked with currentColor), so a state is
// never told by colour alone and no icon font or icon library is loaded. Each icon is one path;
// circles are drawn as two arcs. Always decorative: the word beside it carries the meaning.
const CIRCLE = 'M3 12a9 9 0 1 0 18 0a9 9 0 1 0-18 0';

export const ICONS = {
  back: 'M15 5l-7 7 7 7',
  chevron: 'M9 5l7 7-7 7',
  settings:
    'M4 7h9M17 7h3M4 17h3M11 17h9M13 7a2 2 0 1 0 4 0a2 2 0 1 0-4 0M7 17a2 2 0 1 0 4 0a2 2 0 1 0-4 0',
  plus: 'M12 5v14M5 12h14',
  link: 'M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1',
  /** Working, connecting: two arrows chasing each other. */
  sync: 'M20 12a8 8 0 0 1-14 5M4 12a8 8 0 0 1 14-5M18 3v4h-4M6 21v-4h4',
  /** The phone's own link is down (not the machine). */
  offline:
    'M3 3l18 18M5 12.5a10 10 0 0 1 5-2.7M14 9.8a10 10 0 0 1 5 2.7M8.5 16a5 5 0 0 1 7 0M12 19.5h.01',
  /** The machine is away. */
  machineOff: 'M4 5h16v11H4zM8 20h8M12 16v4M9 8l6 5M15 8l-6 5',
  ok: `${CIRCLE}M8 12.5l2.5 2.5L16 9.5`,
  failed: `${CIRCLE}M9 9l6 6M15 9l-6 6`,
  waiting: `${CIRCLE}M12 7v5l3 2`,
  running: `${CIRCLE}M10 8.5v7l5.5-3.5z`,
  idle: `${CIRCLE}M10 9v6M14 9v6`,
  /** SC5: stopped by the owner (a square, as on a Stop button). */
  stopped: `${CIRCLE}M9 9h6v6H9z`,
  /** SC5 / E11: the session can take no more messages. */
  ended: `${CIRCLE}M8 12h8`,
  warn: 'M12 3L2 20h20zM12 10v4M12 17h.01',
  sent: 'M4 12l16-8-6 16-2.5-5.5z',
} as const;
export type IconName = keyof typeof ICONS;

export function Icon(props: { name: IconName }) {
  return (
    <svg class="icon" viewBox="0 0 24 24" aria-hidden="true">
      <path d={ICONS[props.name]} />
    </svg>
  );
}
