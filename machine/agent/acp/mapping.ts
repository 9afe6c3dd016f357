import path from 'node:path';
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationPropertySchema,
  PermissionOption,
  PlanEntry,
  PromptResponse,
  RequestPermissionResponse,
  ToolCallContent,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import type { ApprovalAsk } from '../../approvals/approval-offer.ts';
import type { AgentAnswers, AgentQuestion, AgentUsage, ApprovalAnswer } from '../agent.ts';
import { unifiedDiff } from '../claude/tools.ts';

// E10: what an ACP agent's requests become on the phone, and the phone's answers back. The card's
// `tool` is the tool call's kind as the agent names it (`execute`, `edit`…; its title when it
// gives no kind). A command shows the command; a change to a file shows a unified diff of the
// tool call's `diff` content (jsdiff, the helper Claude's cards use). The answer picks the
// agent's option by KIND — `allow_once` or `reject_once` — never by id (ids differ per agent) and
// never `allow_always`: remembering is the machine's own (E2). Nothing here can carry an edited
// command (ACP's answer has no input), so a command is never editable (E3).

const INPUT_CHARS = 2000;
type Raw = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The command of an `execute` call: `rawInput.command` (a string or argv), else the title. */
function commandOf(call: ToolCallUpdate): string {
  const raw = (call.rawInput ?? {}) as Raw;
  const c = raw.command;
  if (Array.isArray(c)) {
    // `["/bin/bash","-lc","<script>"]` (Codex's ACP) reads best as the script itself.
    const argv = c.map(String);
    return argv.length === 3 && /sh$/.test(argv[0]!) && argv[1]!.startsWith('-')
      ? argv[2]!
      : argv.join(' ');
  }
  if (typeof c === 'string' && c !== '') return c;
  return (call.title ?? '').replace(/^`(.*)`$/s, '$1');
}

const textOf = (content: readonly ToolCallContent[] | null | undefined): string =>
  (content ?? [])
    .map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : ''))
    .filter((t) => t !== '')
    .join('\n');

const diffsOf = (content: readonly ToolCallContent[] | null | undefined) =>
  (content ?? []).flatMap((c) => (c.type === 'diff' ? [c] : []));

/** The agent's own name for the tool: its kind, or its title when it gives none. */
export function agentToolOf(call: ToolCallUpdate): string {
  return call.kind ?? call.title ?? 'tool';
}

export function permissionAsk(call: ToolCallUpdate, cwd: string): ApprovalAsk {
  const agentTool = agentToolOf(call);
  const title = call.title ?? agentTool;
  const diffs = diffsOf(call.content);
  if (diffs.length > 0) {
    const detail = diffs
      .map((d) => {
        const file = path.resolve(cwd, d.path);
        const added = d.oldText === null || d.oldText === undefined || d._meta?.kind === 'add';
        return unifiedDiff(file, cwd, added ? null : d.oldText!, d.newText);
      })
      .join('\n');
    const only = diffs.length === 1 ? path.resolve(cwd, diffs[0]!.path) : null;
    return only !== null
      ? { tool: 'write', agentTool, title, detail, path: only }
      : { tool: 'other', agentTool, title, detail };
  }
  if (call.kind === 'execute') {
    const command = commandOf(call);
    const said = textOf(call.content);
    return {
      tool: 'run',
      agentTool,
      // The app titles a command card with the command itself (SC2); this says nothing more.
      title: 'Run a command',
      detail: said !== '' ? `${command}\n\n${said}` : command,
      command,
      editable: false,
    };
  }
  const said = textOf(call.content);
  const json = call.rawInput !== undefined ? JSON.stringify(call.rawInput, null, 2) : '';
  const detail = [said, json.length > INPUT_CHARS ? `${json.slice(0, INPUT_CHARS)}…` : json]
    .filter((t) => t !== '')
    .join('\n\n');
  return { tool: 'other', agentTool, title, detail: detail || title };
}

/**
 * The phone's answer as the agent's option, chosen by kind. No option of the kind needed (an
 * agent that offers no `reject_once`): a deny is `cancelled`, which every agent reads as "not
 * allowed"; an allow with no `allow_once` cannot be given, so it is refused too (fail closed).
 */
export function permissionOutcome(
  answer: ApprovalAnswer,
  options: readonly PermissionOption[],
): RequestPermissionResponse {
  // A card closed by Stop: ACP asks for `cancelled` on every request pending at `session/cancel`.
  if (!answer.allowed && answer.why === 'cancelled') return { outcome: { outcome: 'cancelled' } };
  const kind = answer.allowed ? 'allow_once' : 'reject_once';
  const option = options.find((o) => o.kind === kind);
  return option !== undefined
    ? { outcome: { outcome: 'selected', optionId: option.optionId } }
    : { outcome: { outcome: 'cancelled' } };
}

/** `other`: the free-text field that completes a choice (`<key>_custom`, Claude's "Other"). */
type Field = { key: string; question: AgentQuestion; values: string[]; other?: string };
const OTHER_SUFFIX = '_custom';

function fieldOf(key: string, p: ElicitationPropertySchema, message: string | null): Field {
  const s = p as Raw & { title?: string | null; description?: string | null };
  // The question is the field's description; a form of one field may put it in its message.
  const prompt = str(s.description) || message || str(s.title) || key;
  const header = str(s.title) !== '' && str(s.title) !== prompt ? str(s.title) : undefined;
  const items = (p.type === 'array' ? (s.items as Raw | undefined) : s) ?? {};
  const oneOf = Array.isArray(items.oneOf)
    ? (items.oneOf as Array<{ const?: unknown; title?: unknown }>)
    : Array.isArray(items.anyOf)
      ? (items.anyOf as Array<{ const?: unknown; title?: unknown }>)
      : null;
  const values =
    oneOf !== null
      ? oneOf.map((o) => str(o.const))
      : Array.isArray(items.enum)
        ? (items.enum as unknown[]).map(String)
        : [];
  const labels = oneOf !== null ? oneOf.map((o) => str(o.title) || str(o.const)) : values;
  return {
    key,
    values,
    question: {
      prompt,
      ...(header !== undefined ? { header } : {}),
      options: labels,
      multiSelect: p.type === 'array',
      allowFreeText: values.length === 0 && p.type === 'string',
    },
  };
}

/** A form elicitation's fields as questions for the phone (one card, one item per field). */
export function elicitationFields(req: CreateElicitationRequest): Field[] | null {
  if (req.mode !== 'form') return null;
  const schema = (
    req as { requestedSchema?: { properties?: Record<string, ElicitationPropertySchema> } }
  ).requestedSchema;
  const props = schema?.properties ?? {};
  const isOther = (k: string, p: ElicitationPropertySchema) =>
    k.endsWith(OTHER_SUFFIX) &&
    props[k.slice(0, -OTHER_SUFFIX.length)] !== undefined &&
    p.type === 'string';
  const entries = Object.entries(props).filter(([k, p]) => !isOther(k, p));
  const message = entries.length === 1 && req.message !== '' ? req.message : null;
  const fields = entries.map(([k, p]) => {
    const f = fieldOf(k, p, message);
    const other = `${k}${OTHER_SUFFIX}`;
    const o = props[other];
    return o !== undefined && isOther(other, o)
      ? { ...f, other, question: { ...f.question, allowFreeText: true } }
      : f;
  });
  return fields.every((f) => f.question.options.length > 0 || f.question.allowFreeText)
    ? fields
    : null;
}

/** The phone's answers as the form's content: each chosen label back to its `const`. */
export function elicitationAnswer(fields: Field[], a: AgentAnswers): CreateElicitationResponse {
  if (!a.ok) return { action: a.why === 'denied' ? 'decline' : 'cancel' };
  const content: Record<string, string | string[]> = {};
  fields.forEach((f, i) => {
    const c = a.choices[i] ?? { labels: [] };
    const picked = c.labels.map((l) => f.values[f.question.options.indexOf(l)] ?? l);
    if (f.question.multiSelect) content[f.key] = picked;
    else if (picked[0] !== undefined || f.other === undefined)
      content[f.key] = picked[0] ?? c.freeText ?? '';
    if (f.other !== undefined && c.freeText !== undefined) content[f.other] = c.freeText;
  });
  return { action: 'accept', content };
}

/** A plan as one transcript line per entry, its status as a box. */
export function planText(entries: readonly PlanEntry[]): string {
  const box = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const;
  return ['Plan:', ...entries.map((e) => `${box[e.status] ?? '[ ]'} ${e.content}`)].join('\n');
}

type Counts = { input: number; output: number };
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * A turn's token counts from the prompt result: ACP's `usage` (Claude's adapter), else Gemini's
 * `_meta.quota.token_count`. Null when the agent reported none. And the model, when it says.
 */
export function turnUsage(r: PromptResponse): { counts: Counts | null; model: string | null } {
  const usage = (r as { usage?: Raw }).usage;
  const quota = (r._meta?.quota ?? null) as {
    token_count?: Raw;
    model_usage?: Array<{ model?: unknown; token_count?: Raw }>;
  } | null;
  const models = (quota?.model_usage ?? [])
    .filter((m) => num(m.token_count?.input_tokens) + num(m.token_count?.output_tokens) > 0)
    .map((m) => str(m.model))
    .filter((m) => m !== '' && m !== 'auto');
  const model = models[0] ?? null;
  if (usage !== undefined && usage !== null)
    return {
      counts: {
        input: num(usage.inputTokens) + num(usage.cachedReadTokens) + num(usage.cachedWriteTokens),
        output: num(usage.outputTokens),
      },
      model,
    };
  if (quota?.token_count !== undefined)
    return {
      counts: {
        input: num(quota.token_count.input_tokens),
        output: num(quota.token_count.output_tokens),
      },
      model,
    };
  return { counts: null, model };
}

/** E10: the session's usage so far from per-turn counts, with the latest cost the agent gave. */
export function addUsage(
  so: AgentUsage | null,
  turn: Counts,
  costUsd: number | undefined,
): AgentUsage {
  return {
    inputTokens: (so?.inputTokens ?? 0) + turn.input,
    outputTokens: (so?.outputTokens ?? 0) + turn.output,
    ...(costUsd !== undefined
      ? { costUsd }
      : so?.costUsd !== undefined
        ? { costUsd: so.costUsd }
        : {}),
  };
}
