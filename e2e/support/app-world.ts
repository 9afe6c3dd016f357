// Real processes for the layout tests, the screenshots and the tap benchmark: the relay and a
// mock machine, a test phone socket in the room that dispatches scripted sessions (docs/mock-agent.md)
// and waits until each reaches the state the caller asked for, and the app paired through its
// stored layout (src/client/pairing-store.ts) so no test spends time in the pairing screens.
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { parsePairing, roomKeys } from '../../protocol/index.ts';
import { APP_ORIGIN } from '../../playwright.config.ts';
import { startMachine, startRelay, type MockMachine, type Relay } from './processes.ts';
import { type RoomSocket, joinMachineRoom } from './room-socket.ts';
import { storePairings } from './sw.ts';

type Message = Record<string, unknown>;
export type PairingRecord = {
  roomId: string;
  relay: string;
  machine: string;
  secret: string;
  pairedAt: number;
};

export type WorldMachine = {
  name: string;
  proc: MockMachine;
  roomId: string;
  key: Uint8Array;
  record: PairingRecord;
  /** A phone socket of the test's own in the machine's room. */
  phone: RoomSocket;
  /**
   * Dispatches `prompt` into the machine's root and resolves with the session id once a message
   * about that session matches `until` (an approval, a question, a state).
   */
  dispatch(prompt: string, until: (m: Message, sessionId: string) => boolean): Promise<string>;
  /** Answers the session's open question with its first option, then waits like `dispatch`. */
  answerFirst(sessionId: string, until: (m: Message, sessionId: string) => boolean): Promise<void>;
  stop(): Promise<void>;
};

export type AppWorld = {
  relay: Relay;
  machines: WorldMachine[];
  addMachine(name: string): Promise<WorldMachine>;
  close(): Promise<void>;
};

export const isApproval = (m: Message, sessionId: string) =>
  m.type === 'approval.request' && m.sessionId === sessionId;
export const isQuestion = (m: Message, sessionId: string) =>
  m.type === 'question.request' && m.sessionId === sessionId;
export const inState = (state: string) => (m: Message, sessionId: string) =>
  m.type === 'session.update' &&
  (m.session as Message).sessionId === sessionId &&
  (m.session as Message).state === state;

export async function startAppWorld(): Promise<AppWorld> {
  const relay = await startRelay();
  const machines: WorldMachine[] = [];
  const addMachine = async (name: string): Promise<WorldMachine> => {
    const proc = await startMachine({ relay: relay.url, name, appUrl: APP_ORIGIN });
    const parsed = parsePairing(proc.pairingCode);
    if (!parsed.ok) throw new Error(parsed.message);
    const { roomId, key } = roomKeys(parsed.value.secretBytes);
    const phone = await joinMachineRoom(relay.url, roomId, key);
    const root = realpathSync(proc.root);
    // A wait that fails says what it waited for, what arrived last and what the machine printed.
    const wait = async (what: string, match: (m: Message) => boolean) => {
      try {
        return await phone.waitForMessage(match);
      } catch (e) {
        const last = phone.messages.slice(-6).map((m) => JSON.stringify(m).slice(0, 200));
        throw new Error(
          `${name}: ${what}: ${(e as Error).message}\nlast messages:\n${last.join('\n')}\nmachine:\n${proc.proc.lines.slice(-20).join('\n')}`,
        );
      }
    };
    const machine: WorldMachine = {
      name,
      proc,
      roomId,
      key,
      record: { roomId, relay: relay.url, machine: name, secret: parsed.value.secret, pairedAt: 1 },
      phone,
      async dispatch(prompt, until) {
        const requestId = randomUUID();
        phone.sendMessage({
          v: 1,
          type: 'dispatch.request',
          ts: Date.now(),
          requestId,
          prompt,
          cwd: root,
          worktree: false,
        });
        const result = await wait(
          `the result of dispatching ${JSON.stringify(prompt.slice(0, 40))}`,
          (m) => m.type === 'dispatch.result' && m.requestId === requestId,
        );
        if (result.ok !== true) throw new Error(`dispatch refused: ${JSON.stringify(result)}`);
        const sessionId = String(result.sessionId);
        await wait(`session ${sessionId} to reach its state`, (m) => until(m, sessionId));
        return sessionId;
      },
      async answerFirst(sessionId, until) {
        const question = await wait(`a question in ${sessionId}`, (m) => isQuestion(m, sessionId));
        const before = phone.messages.length;
        phone.sendMessage({
          v: 1,
          type: 'question.respond',
          ts: Date.now(),
          requestId: randomUUID(),
          questionId: question.questionId,
          answers: [{ itemId: 'q1', optionIds: ['1'] }],
        });
        await wait(
          `session ${sessionId} after the answer`,
          (m) => phone.messages.indexOf(m) >= before && until(m, sessionId),
        );
      },
      async stop() {
        await phone.close();
        await proc.stop();
      },
    };
    machines.push(machine);
    return machine;
  };
  return {
    relay,
    machines,
    addMachine,
    async close() {
      for (const m of machines.splice(0)) await m.stop();
      await relay.stop();
    },
  };
}

/** Pairs the app with these machines through its stored layout, then starts it afresh. */
export async function pairApp(page: Page, machines: readonly WorldMachine[]): Promise<void> {
  await page.goto('/');
  await storePairings(
    page,
    machines.map((m) => m.record),
  );
  await page.reload();
}

/**
 * In-app navigation, as a tap on a link does, resolved once the app has seen the new route (its
 * `hashchange`): until then the previous screen is still on show.
 */
export async function go(page: Page, hash: string): Promise<void> {
  await page.evaluate(
    (h) =>
      new Promise<void>((resolve) => {
        if (location.hash === h) return resolve();
        addEventListener('hashchange', () => resolve(), { once: true });
        location.hash = h;
      }),
    hash,
  );
}
