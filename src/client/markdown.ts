import { Lexer, type Token, type Tokens } from 'marked';
import { limitNesting, restoreDelimiters } from './markdown-depth.ts';

// U3.2: the agent's Markdown, read safely. marked (a small, well-kept CommonMark/GFM parser) is
// used only as a lexer: its tokens are turned into the small tree below, which Solid renders as
// text nodes and elements (src/ui/Markdown.tsx). Nothing is ever rendered as HTML:
// - raw HTML in the text (block or inline) is shown as the literal text it is;
// - a link keeps its target only when it is an absolute `https:` URL (anything else —
//   `javascript:`, `http:`, `data:`, relative — is shown as plain text);
// - images are never loaded (a request would tell a third party when the owner reads): an image
//   becomes a link to it under the same rule.
// This module is only imported by the session screen's lazy Markdown chunk (size budget).

export type Inline =
  | { t: 'text'; text: string }
  | { t: 'strong' | 'em' | 'del'; children: Inline[] }
  | { t: 'code'; text: string }
  | { t: 'br' }
  | { t: 'link'; href: string; children: Inline[] };

export type Block =
  | { t: 'p'; children: Inline[] }
  | { t: 'h'; level: number; children: Inline[] }
  | { t: 'code'; text: string; lang?: string }
  | { t: 'quote'; children: Block[] }
  | { t: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { t: 'table'; header: Inline[][]; rows: Inline[][][] }
  | { t: 'hr' };

/** An absolute https: URL, normalised; anything else is refused. */
export function safeHref(raw: string): string | null {
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};
// F1: every text leaving this module has limitNesting's stand-ins turned back (restoreDelimiters).
const decode = (s: string) =>
  restoreDelimiters(s.replace(/&(?:amp|lt|gt|quot|#39);/g, (m) => ENTITIES[m] ?? m));

function inlines(tokens: readonly Token[] | undefined): Inline[] {
  const out: Inline[] = [];
  for (const tok of tokens ?? []) {
    const t = tok as Tokens.Generic;
    switch (t.type) {
      case 'strong':
      case 'em':
      case 'del':
        out.push({ t: t.type, children: inlines(t.tokens) });
        break;
      case 'codespan':
        out.push({ t: 'code', text: decode(String(t.text)) });
        break;
      case 'br':
        out.push({ t: 'br' });
        break;
      case 'link': {
        const href = safeHref(String(t.href));
        const children = inlines(t.tokens);
        if (href) out.push({ t: 'link', href, children });
        else out.push(...children);
        break;
      }
      case 'image': {
        const href = safeHref(String(t.href));
        const label: Inline = {
          t: 'text',
          text: restoreDelimiters(String(t.text) || String(t.href)),
        };
        out.push(href ? { t: 'link', href, children: [label] } : label);
        break;
      }
      case 'text':
        if (t.tokens && t.tokens.length > 0) out.push(...inlines(t.tokens));
        else out.push({ t: 'text', text: decode(String(t.text)) });
        break;
      case 'escape':
        out.push({ t: 'text', text: decode(String(t.text)) });
        break;
      default:
        // Raw HTML and anything this renderer does not know: the literal source text.
        out.push({ t: 'text', text: restoreDelimiters(String(t.raw)) });
    }
  }
  return out;
}

function blocks(tokens: readonly Token[]): Block[] {
  const out: Block[] = [];
  for (const tok of tokens) {
    const t = tok as Tokens.Generic;
    switch (t.type) {
      case 'space':
      case 'def':
        break;
      case 'paragraph':
        out.push({ t: 'p', children: inlines(t.tokens) });
        break;
      case 'text':
        // Loose text at block level (inside list items).
        out.push({
          t: 'p',
          children: t.tokens ? inlines(t.tokens) : [{ t: 'text', text: decode(String(t.text)) }],
        });
        break;
      case 'heading':
        out.push({
          t: 'h',
          level: Math.min(6, Math.max(1, Number(t.depth))),
          children: inlines(t.tokens),
        });
        break;
      case 'code':
        // A lone fence (the agent opened a block and said nothing in it) is not an empty box.
        if (String(t.text) === '')
          out.push({
            t: 'p',
            children: [{ t: 'text', text: restoreDelimiters(String(t.raw).trim()) }],
          });
        else
          out.push({
            t: 'code',
            text: restoreDelimiters(String(t.text)),
            ...(t.lang ? { lang: String(t.lang) } : {}),
          });
        break;
      case 'blockquote':
        out.push({ t: 'quote', children: blocks(t.tokens ?? []) });
        break;
      case 'list': {
        const list = t as unknown as Tokens.List;
        out.push({
          t: 'list',
          ordered: list.ordered,
          start: typeof list.start === 'number' ? list.start : 1,
          items: list.items.map((item) => blocks(item.tokens)),
        });
        break;
      }
      case 'table': {
        const table = t as unknown as Tokens.Table;
        out.push({
          t: 'table',
          header: table.header.map((c) => inlines(c.tokens)),
          rows: table.rows.map((r) => r.map((c) => inlines(c.tokens))),
        });
        break;
      }
      case 'hr':
        out.push({ t: 'hr' });
        break;
      default:
        // Block HTML and unknown tokens: shown as the text they are, line breaks kept.
        out.push({ t: 'code', text: restoreDelimiters(String(t.raw).replace(/\n+$/, '')) });
    }
  }
  return out;
}

/** GFM, with single line breaks kept as breaks (agents and command output rely on them). */
export function parseMarkdown(src: string): Block[] {
  // F1: no line opens more than MAX_NESTING quotes and lists (markdown-depth.ts).
  return blocks(Lexer.lex(limitNesting(src), { gfm: true, breaks: true }));
}
