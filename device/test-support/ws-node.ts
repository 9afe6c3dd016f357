import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as WsModule from 'ws';

// `ws` is loaded from its Node entry by absolute path on purpose: under vitest
// (vite-plugin-solid adds the `browser` resolve condition) both `import 'ws'` and require('ws')
// resolve ws's browser stub, which has no server and no client.
const require = createRequire(import.meta.url);
const ws = require(
  join(dirname(require.resolve('ws/package.json')), 'index.js'),
) as typeof WsModule;
export const WebSocketServer = ws.WebSocketServer;
export const WebSocket = ws.WebSocket;
export type WebSocket = WsModule.WebSocket;
