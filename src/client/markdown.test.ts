import { describe, expect, it } from 'vitest';
import { parseMarkdown, safeHref, type Block, type Inline } from './markdown.ts';

const texts = (nodes: readonly (Inline | Block)[]): string =>
  nodes
    .map((n) =>
      'text' in n
        ? n.text
        : 'children' in n
          ? texts(n.children as (Inline | Block)[])
          : n.t === 'br'
            ? '\n'
            : '',
    )
    .join('');

describe('U3.2: the agent’s Markdown is rendered safely', () => {
  it('U3.2: line breaks in a summary stay line breaks', () => {
    const [p] = parseMarkdown('Ran the tests:\n12 passed\n0 failed');
    expect(p).toMatchObject({ t: 'p' });
    expect((p as { children: Inline[] }).children.filter((c) => c.t === 'br')).toHaveLength(2);
    expect(texts([p!])).toBe('Ran the tests:\n12 passed\n0 failed');
  });

  it('U3.2: fenced code keeps its text and language, monospace is the renderer’s job', () => {
    expect(parseMarkdown('```ts\nconst a = 1;\n  indented\n```')).toEqual([
      { t: 'code', text: 'const a = 1;\n  indented', lang: 'ts' },
    ]);
  });

  it('U3.2: a lone fence is shown as its text, not as an empty code box', () => {
    expect(parseMarkdown('```')).toEqual([{ t: 'p', children: [{ t: 'text', text: '```' }] }]);
  });

  it('U3.2: raw HTML is never an element: it is shown as the literal text', () => {
    const tree = parseMarkdown(
      '<script>alert(1)</script>\n\nhi <img src=x onerror=alert(1)> there',
    );
    expect(JSON.stringify(tree)).not.toContain('"t":"html"');
    expect(tree[0]).toEqual({ t: 'code', text: '<script>alert(1)</script>' });
    expect(texts(tree.slice(1))).toBe('hi <img src=x onerror=alert(1)> there');
  });

  it('U3.2: links keep their target only for https:', () => {
    const tree = parseMarkdown(
      '[ok](https://example.com/a?b=1) [js](javascript:alert(1)) [plain](http://example.com) [rel](/x) <https://auto.example>',
    );
    const links = JSON.stringify(tree).match(/"href":"[^"]+"/g);
    expect(links).toEqual(['"href":"https://example.com/a?b=1"', '"href":"https://auto.example/"']);
    expect(texts(tree)).toContain('js');
    expect(safeHref(' javascript:alert(1)')).toBeNull();
    expect(safeHref('HTTPS://Example.com')).toBe('https://example.com/');
  });

  it('U3.2: an image is never loaded: it becomes a link (https only) labelled with its alt text', () => {
    expect(parseMarkdown('![chart](https://img.example/c.png)')).toEqual([
      {
        t: 'p',
        children: [
          {
            t: 'link',
            href: 'https://img.example/c.png',
            children: [{ t: 'text', text: 'chart' }],
          },
        ],
      },
    ]);
    expect(JSON.stringify(parseMarkdown('![x](data:image/png;base64,AAAA)'))).not.toContain('href');
  });

  it('lists, headings, emphasis and tables come out as plain nodes', () => {
    const tree = parseMarkdown(
      '# Title\n\n- **bold** and *em*\n- `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |',
    );
    expect(tree.map((b) => b.t)).toEqual(['h', 'list', 'table']);
    expect(texts(tree.slice(0, 1))).toBe('Title');
    const list = tree[1] as Extract<Block, { t: 'list' }>;
    expect(list.items.map((item) => texts(item))).toEqual(['bold and em', 'code']);
  });
});
