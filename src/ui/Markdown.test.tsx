// @vitest-environment jsdom
import { cleanup, render } from '@solidjs/testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import Markdown from './Markdown.tsx';

afterEach(cleanup);

// F1: the component itself, in a DOM: 64 KiB of hostile nesting renders (no error screen) and
// shows its text.
const SIZE_BYTES = 64 * 1024;
const oneLine = (unit: string) => unit.repeat(Math.floor((SIZE_BYTES - 5) / unit.length)) + ' deep';

describe('F1: the Markdown component survives hostile nesting', () => {
  it.each([
    ['quotes', oneLine('>'), 'blockquote'],
    ['lists', oneLine('- '), 'ul'],
    ['quotes and lists', oneLine('> 1. '), 'blockquote'],
  ])(
    'F1: 64 KiB of nested %s renders without throwing and shows its text',
    (_name, src, element) => {
      const { container } = render(() => <Markdown text={src} />);
      expect(container.textContent).toContain('deep');
      expect(container.querySelectorAll(element).length).toBeGreaterThan(0);
    },
  );
});
