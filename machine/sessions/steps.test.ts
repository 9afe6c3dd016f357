import { describe, expect, it } from 'vitest';
import { addStep, EMPTY_TRAIL, trailForWire } from './steps.ts';

describe('Session.steps', () => {
  it('Consecutive repeats collapse to "read ×5"', () => {
    let t = EMPTY_TRAIL;
    for (const tool of ['list', 'read', 'read', 'read', 'read', 'read', 'run', 'read'])
      t = addStep(t, tool);
    expect(trailForWire(t)).toEqual({
      steps: [{ tool: 'list' }, { tool: 'read', count: 5 }, { tool: 'run' }, { tool: 'read' }],
    });
  });

  it('Only the most recent entries survive; stepCount (the true total) only when entries were dropped', () => {
    let t = EMPTY_TRAIL;
    for (let i = 0; i < 4; i++) t = addStep(t, `t${i}`, 4);
    expect(trailForWire(t)).toEqual({ steps: ['t0', 't1', 't2', 't3'].map((tool) => ({ tool })) });
    t = addStep(t, 'read', 4);
    t = addStep(t, 'read', 4);
    expect(trailForWire(t)).toEqual({
      steps: [{ tool: 't1' }, { tool: 't2' }, { tool: 't3' }, { tool: 'read', count: 2 }],
      stepCount: 6,
    });
  });
});
