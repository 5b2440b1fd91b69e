// The harness's planner (static/python/harness/planner.py) plays the engine's planner's episodes
// (cwm/mcts.rs) in the page's Pyodide, action for action, from the same draws: the record that
// cli/tests/world_models.rs holds native python3 and the engine to.
import { test, expect } from '@playwright/test';
import { read, harnessInNode } from './helpers.mjs';

test('the harness plans in Pyodide the episodes the engine plans', async () => {
  const { handle } = await harnessInNode();
  const { episodes } = JSON.parse(await read('tasks/gym/planner_parity.json'));
  expect(episodes.length).toBe(6);
  for (const { request, actions, rewards, terminated } of episodes) {
    const verdict = JSON.parse(handle(JSON.stringify(request)));
    expect(verdict.outcome, verdict.error).toBe('pass');
    const { plan } = request;
    expect({ actions: verdict.episode.actions, rewards: verdict.episode.rewards, terminated: verdict.episode.terminated }, `seed ${plan.seed}, start ${plan.start}`)
      .toEqual({ actions, rewards, terminated });
  }
});
