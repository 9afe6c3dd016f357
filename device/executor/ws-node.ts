// `ws` from its Node entry by absolute path: under vitest (vite-plugin-solid adds the `browser`
// resolve condition) a plain `import 'ws'` resolves ws's browser stub, which cannot connect.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as WsModule from 'ws';

const require = createRequire(import.meta.url);
const ws = require(
  join(dirname(require.resolve('ws/package.json')), 'index.js'),
) as typeof WsModule;
export const WebSocket = ws.WebSocket;
export type WebSocket = WsModule.WebSocket;
