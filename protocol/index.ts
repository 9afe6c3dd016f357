// dsh-dispatch wire v1: the one library the phone, its service worker, the relay and the machine
// share. Runs unchanged in browsers, service workers and Node (see protocol/tsconfig.json).
export * from './result.ts';
export * from './closed-sets.ts';
export * from './limits.ts';
export * from './bytes.ts';
export * from './clamp.ts';
export * from './pairing.ts';
export * from './keys.ts';
export * from './seal.ts';
export * from './frames.ts';
export * from './messages.ts';
export * from './push.ts';
export * from './push-receipt.ts';
export * from './idempotency.ts';
export * from './backoff.ts';
export * from './text-limits.ts';
export * from './socket-like.ts';
export * from './timers.ts';
export * from './rotate-box.ts';
export * from './presence.ts';
export * from './sha256.ts';
export * from './identity.ts';
export * from './approval-checks.ts';
