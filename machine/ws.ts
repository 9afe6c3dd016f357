// `ws` loaded by file path: under vitest the Solid plugin turns on the "browser" export
// condition, which hands out `ws`'s browser stub (a function that throws). The package's main
// file is the real Node implementation. (Same fix as relay/ws.ts; machine/ may not import it.)
import { createRequire } from 'node:module';
import path from 'node:path';

type WsModule = typeof import('ws');
const require = createRequire(import.meta.url);
const root = path.dirname(require.resolve('ws/package.json'));
const ws = require(path.join(root, 'index.js')) as WsModule;

export const WebSocket = ws.WebSocket;
export type WebSocket = import('ws').WebSocket;
export const WebSocketServer = ws.WebSocketServer;
export type WebSocketServer = import('ws').WebSocketServer;
