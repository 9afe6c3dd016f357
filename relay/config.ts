// Parsing and --help, both made from the one options table (options.ts, P7). Flags win over
// environment variables, which win over defaults.
import {
  FLAG_FORMS,
  OPTIONS,
  type Option,
  type RelaySettings,
  type SettingKey,
} from './options.ts';

export type { RelaySettings } from './options.ts';

type Spec = Option<unknown> & { key: SettingKey };

/** The table as a list, in its order (the order of --help and the docs). */
export const SETTING_SPECS: readonly Spec[] = Object.entries(OPTIONS).map(([key, o]) => ({
  ...(o as Option<unknown>),
  key: key as SettingKey,
}));

export const DEFAULT_SETTINGS: RelaySettings = Object.fromEntries(
  SETTING_SPECS.map((s) => [s.key, s.default]),
) as RelaySettings;

export type ParsedArgs =
  { ok: true; help: boolean; settings: RelaySettings } | { ok: false; message: string };

const invalid = (raw: string) => `invalid value "${raw}"`;

/** Flags win over environment variables, which win over defaults. */
export function parseSettings(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): ParsedArgs {
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const spec of SETTING_SPECS) {
    const raw = env[spec.env];
    if (raw === undefined || raw === '') continue;
    const v = spec.parse(raw);
    if (!v.ok) return { ok: false, message: `${spec.env}: ${v.message ?? invalid(raw)}` };
    out[spec.key] = v.value;
  }
  const repeated = new Map<string, string[]>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) return { ok: false, message: `unexpected argument "${arg}"` };
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const negated = SETTING_SPECS.find(
      (s) => s.form === FLAG_FORMS.switch && `no-${s.flag}` === name,
    );
    if (negated && eq === -1) {
      out[negated.key] = false;
      continue;
    }
    const spec = SETTING_SPECS.find((s) => s.flag === name);
    if (!spec) return { ok: false, message: `unknown option --${name} (see --help)` };
    if (spec.form === FLAG_FORMS.switch && eq === -1) {
      out[spec.key] = true;
      continue;
    }
    const raw = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (raw === undefined) return { ok: false, message: `--${name} needs a value` };
    const v = spec.parse(raw);
    if (!v.ok) return { ok: false, message: `--${name}: ${v.message ?? invalid(raw)}` };
    if (spec.form === FLAG_FORMS.repeatable)
      repeated.set(spec.key, [...(repeated.get(spec.key) ?? []), ...(v.value as string[])]);
    else out[spec.key] = v.value;
  }
  for (const [key, values] of repeated) out[key] = values;
  return { ok: true, help, settings: out as RelaySettings };
}

/** How a flag is written: `--x <value>`, `--x / --no-x`. */
export const flagUsage = (s: Spec, value = ' <value>'): string =>
  s.form === FLAG_FORMS.switch ? `--${s.flag} / --no-${s.flag}` : `--${s.flag}${value}`;

export function helpText(): string {
  const lines = [
    'Usage: npm run relay -- [options]',
    '',
    'Options (flag / environment variable, default):',
  ];
  for (const s of SETTING_SPECS) {
    const help = s.help.replaceAll('`', '');
    lines.push(`  ${flagUsage(s)}`, `      ${s.env}, default ${s.shown}`, `      ${help}`);
  }
  lines.push('  --help', '      this text');
  return lines.join('\n');
}
