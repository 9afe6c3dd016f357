import path from 'node:path';
import { captureLog, type CapturedLog } from '../log.ts';
import { openStore, type Store } from '../sessions/store.ts';
import {
  makeTranscripts,
  type TranscriptLimits,
  type Transcripts,
} from '../sessions/transcript.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';

/** A real store in a fresh state dir; `reopen()` closes it and opens the same file again. */
export function makeTestStore(o: { maxPages?: number; limits?: TranscriptLimits } = {}) {
  const tmp = makeTmpDir('machine-store-');
  const stateDir = path.join(tmp.dir, 'state');
  const log: CapturedLog = captureLog();
  const open = (): { store: Store; transcripts: Transcripts } => {
    const store = openStore(stateDir, {
      log,
      ...(o.maxPages !== undefined ? { maxPages: o.maxPages } : {}),
    });
    return { store, transcripts: makeTranscripts(store, o.limits) };
  };
  let current = open();
  return {
    stateDir,
    log,
    get store() {
      return current.store;
    },
    get transcripts() {
      return current.transcripts;
    },
    reopen() {
      current.store.close();
      current = open();
      return current;
    },
    cleanup() {
      current.store.close();
      tmp.cleanup();
    },
  };
}
