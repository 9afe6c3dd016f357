// device/lane: the server side of the device executor protocol, hosted by the mock machine.
export { startDeviceLane, type DeviceLane, type DeviceSummary } from './lane.ts';
export type { DispatchHandle, DispatchOutput, DispatchRequest } from './dispatcher.ts';
export type { StreamItem } from './chunk-stream.ts';
export type { AuditEvent, DeviceLaneOptions } from './options.ts';
export type { TimerHandle, Timers } from '../timers.ts';
export type { RateLimiter, RateDecision } from './rate-limit.ts';
export { ENROLLMENT_INVALID_BODY } from './http-plane.ts';
