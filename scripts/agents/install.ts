// `npm run agents:install` (E10 packaging): the real agents' CLIs into agents/node_modules, from
// agents/package-lock.json; nothing to do when they are already there.
import path from 'node:path';
import { agentsState, installAgents } from './state.ts';

const agents = path.resolve(import.meta.dirname, '../../agents');
const state = agentsState(agents);
if (state.ok) {
  console.log('agents: up to date (agents/node_modules matches agents/package-lock.json)');
} else {
  console.log(`agents: installing — ${state.why}`);
  const started = performance.now();
  const r = await installAgents(agents, true);
  if (r.code === 0)
    console.log(`agents: installed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  process.exitCode = r.code;
}
