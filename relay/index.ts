// The relay as a library: startRelay for tests, benchmarks and main.ts.
export { startRelay, type RelayOptions, type RunningRelay } from './server.ts';
export { DEFAULT_SETTINGS, parseSettings, helpText, type RelaySettings } from './config.ts';
