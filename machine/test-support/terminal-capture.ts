import { PassThrough, Writable } from 'node:stream';

/** Anything a terminal would act on: ESC, BEL, other C0 but \n and \t, DEL, C1 (H5). */
export const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** A stream that records what is written to it; `tty` makes it look like a terminal. */
export function captureStream(o: { tty?: boolean; columns?: number } = {}) {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      text += chunk.toString();
      done();
    },
  }) as Writable & { isTTY?: boolean; columns?: number };
  if (o.tty === true) {
    stream.isTTY = true;
    stream.columns = o.columns ?? 80;
  }
  return {
    stream,
    text: () => text,
    /** What was written after the `mark`th character. */
    since: (mark: number) => text.slice(mark),
  };
}

/** Keyboard input for a terminal: a stream the desk reads as if typed. */
export function typedInput(o: { tty?: boolean } = {}) {
  const input = new PassThrough() as PassThrough & { isTTY?: boolean; setRawMode?: () => void };
  if (o.tty === true) {
    input.isTTY = true;
    input.setRawMode = () => undefined;
  }
  return input;
}
