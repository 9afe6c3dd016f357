// The read family (readTextFile, readBinaryFile, readTextLines): content travels as `data`
// chunks, the terminal is `{ok:true, kind:"read"}`. Reads are bounded by a size cap (a file
// over it fails rather than being cut silently) and paced by the outbox's flow control.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Chunker } from '../exec/chunker.ts';
import type { Flow } from '../exec/flow.ts';
import { MAX_CHUNK_RAW_BYTES } from '../limits.ts';
import { fail, fsFailure, linkSwapped, type Outcome } from '../outcome.ts';

export type ReadStop = 'cancel' | 'timeout' | 'fence' | 'shutdown';
export type ReadRun = { readonly done: Promise<Outcome>; stop(reason: ReadStop): void };

export type ReadRequest = {
  /** The caller's path (for messages) and the walked one containment judged (H7a). */
  readonly path: string;
  readonly real: string;
  readonly maxReadBytes: number;
  readonly chunker: Chunker;
  readonly flow: Flow;
  /** readTextLines: lines to skip, then at most this many lines (undefined = to the end). */
  readonly lines?: { readonly offset: number; readonly limit: number | undefined };
};

const NEWLINE = 0x0a;

export const runRead = (req: ReadRequest): ReadRun => {
  let stopped: ReadStop | null = null;
  const run = async (): Promise<Outcome> => {
    let h;
    try {
      // O_NOFOLLOW: the file read is the one judged, never a link put in its place since.
      // O_NONBLOCK: opening a FIFO must not hang the instruction (it is refused below).
      h = await open(req.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ELOOP') return linkSwapped(req.path);
      return fsFailure(e, req.path, 'reading');
    }
    try {
      const st = await h.stat();
      if (st.isDirectory()) return fail('is_directory', `${req.path} is a directory`);
      if (!st.isFile()) {
        return fail(
          'invalid',
          `${req.path} is not a regular file (a FIFO, socket or device); only files are read`,
        );
      }
      if (!req.lines && st.size > req.maxReadBytes) {
        return fail(
          'invalid',
          `${req.path} is ${st.size} bytes, over the executor's read cap of ${req.maxReadBytes}`,
        );
      }
      let skip = req.lines?.offset ?? 0;
      let left = req.lines?.limit ?? Number.POSITIVE_INFINITY;
      let sent = 0;
      while (left > 0) {
        // A fresh buffer per read: the chunker may hold the previous one while coalescing.
        const buf = Buffer.allocUnsafe(MAX_CHUNK_RAW_BYTES);
        if (stopped) return stoppedRead(stopped);
        if (req.flow.blocked()) await req.flow.wait();
        const { bytesRead } = await h.read(buf, 0, buf.length, null);
        if (bytesRead === 0) break;
        let part = buf.subarray(0, bytesRead);
        if (req.lines) {
          // Skip `offset` whole lines, then keep at most `limit` lines (each with its newline).
          let start = 0;
          while (skip > 0 && start < part.length) {
            const nl = part.indexOf(NEWLINE, start);
            if (nl < 0) {
              start = part.length;
              break;
            }
            start = nl + 1;
            skip -= 1;
          }
          let end = start;
          while (left > 0 && end < part.length) {
            const nl = part.indexOf(NEWLINE, end);
            if (nl < 0) {
              end = part.length;
              break;
            }
            end = nl + 1;
            left -= 1;
          }
          part = part.subarray(start, end);
        }
        sent += part.length;
        if (sent > req.maxReadBytes) {
          return fail(
            'invalid',
            `${req.path}: the selected content exceeds the executor's read cap of ${req.maxReadBytes} bytes`,
          );
        }
        if (part.length > 0) req.chunker.push('data', part);
      }
      req.chunker.flush();
      return { ok: true, kind: 'read' };
    } catch (e) {
      return fsFailure(e, req.path, 'reading');
    } finally {
      await h.close();
    }
  };
  return {
    done: run(),
    stop(reason) {
      stopped ??= reason;
    },
  };
};

const stoppedRead = (reason: ReadStop): Outcome =>
  reason === 'timeout'
    ? fail('timeout', 'the read ran past timeoutMs and was stopped')
    : reason === 'shutdown'
      ? fail('aborted', 'the executor shut down during the read')
      : { ok: true, kind: 'cancelled', state: 'killed' };
