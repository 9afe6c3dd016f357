// `npm start`: builds the app when no build exists, then serves it for phones on
// http://127.0.0.1:4173. Later issues grow this into the whole demo (relay, machine, executor).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (!existsSync('dist/index.html')) {
  const build = spawnSync('npx', ['vite', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const preview = spawn(
  'npx',
  ['vite', 'preview', '--host', '127.0.0.1', '--port', '4173', '--strictPort'],
  {
    stdio: 'inherit',
    detached: true,
  },
);
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  if (preview.pid) process.kill(-preview.pid, 'SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
preview.on('exit', (code) => process.exit(code ?? 0));
