import { readFile } from 'node:fs/promises';
import { test, expect } from '@playwright/test';
import { Playground, freshPage, watchErrors } from './helpers.mjs';

test('offline, GIF-MCTS finds a perfect CliffWalking world model; planning with it beats random; Q-learning inside it solves the real CliffWalking', async ({ page }) => {
  test.setTimeout(240_000);
  const errors = watchErrors(page);
  await new Playground(page).open('./', 'search');
  await page.locator('#search-task').selectOption('CliffWalking-v0');
  await expect(page.locator('#cwm-description')).toContainText('## Class definition');
  await expect(page.locator('#cwm-dataset')).toContainText('565 transitions');
  // The same search as `rlcg search --task CliffWalking-v0 --seed 1`: perfect at the 7th call.
  await new Playground(page).search({ method: 'gif-mcts' }, 'Search over: a model predicts every transition.', 180_000);
  await expect(page.locator('#search-summary')).toContainText('7 LLM calls · best score 1.000');
  await expect(page.locator('#search-best')).toContainText('class Environment');

  // A model that is not yet right: its transition table marks the first miss.
  const selectCall = async (call) => {
    const nodes = page.locator('#search-tree .node');
    for (let i = 1; i < await nodes.count(); i++) {
      await nodes.nth(i).click();
      if ((await page.locator('#search-node h3').textContent()).includes(`Call ${call} `)) break;
    }
    await expect(page.locator('#search-node h3')).toContainText(`Call ${call} `);
  };
  await selectCall(4);
  await page.locator('#cwm-score').click();
  await expect(page.locator('#cwm-accuracy')).toContainText('Accuracy 0.831 (official)', { timeout: 60_000 });
  await expect(page.locator('#cwm-transitions tr.first-miss')).toHaveCount(1);
  await expect(page.locator('#cwm-transitions tr.first-miss td').nth(5)).toHaveText('✗');

  // The model of the 7th call, the best: right everywhere.
  await selectCall(7);
  await page.locator('#cwm-score').click();
  await expect(page.locator('#cwm-accuracy')).toContainText('Accuracy 1.000 (official) · 1.000 (paper\'s formula) · 565 of 565', { timeout: 60_000 });
  await expect(page.locator('#cwm-transitions tr.first-miss')).toHaveCount(0);

  // The dataset downloads as JSON lines, and transitions import back: the model is scored on them.
  const download = page.waitForEvent('download');
  await page.locator('#cwm-dataset-download').click();
  const lines = (await readFile(await (await download).path(), 'utf8')).trim().split('\n');
  expect(lines).toHaveLength(565);
  expect(JSON.parse(lines[0])).toMatchObject({ env: 'CliffWalking-v0', obs: 36 });
  const file = (name, text) => ({ name, mimeType: 'application/jsonl', buffer: Buffer.from(text) });
  await page.locator('#cwm-dataset-import').setInputFiles(file('bad.jsonl', `${lines[0]}\nnope\n`));
  await expect(page.locator('#cwm-dataset-error')).toContainText('bad.jsonl: line 2: not a transition');
  await page.locator('#cwm-dataset-import').setInputFiles(file('subset.jsonl', lines.slice(0, 20).join('\n')));
  await expect(page.locator('#cwm-dataset-imported')).toContainText('Imported 20 transitions of CliffWalking-v0 from subset.jsonl');
  await page.locator('#cwm-score').click();
  await expect(page.locator('#cwm-accuracy')).toContainText('20 of 20 transitions right in every part (on subset.jsonl)', { timeout: 60_000 });
  await page.locator('#cwm-dataset-forget').click();
  await expect(page.locator('#cwm-dataset-imported')).toBeHidden();

  // Planning with it is planning with the real environment, far above random actions.
  await page.locator('#cwm-plan').click();
  await expect(page.locator('#cwm-returns')).toContainText('R(CWM) = 1.000', { timeout: 120_000 });
  const returns = await page.locator('#cwm-returns').textContent();
  const [random, model] = [/random (-?[\d.]+)/, /this model (-?[\d.]+)/].map((re) => Number(returns.match(re)[1]));
  expect(model).toBeGreaterThan(random);

  // A planned episode, watched on CliffWalking's grid: it starts at S (state 36) and steps on.
  const canvas = page.locator('#cwm-watch canvas[data-env="CliffWalking-v0"]');
  await expect(canvas).toHaveAttribute('data-observation', '36');
  await expect(page.locator('#cwm-watch .gym-caption')).toHaveText('row 3, column 0');
  await expect(page.locator('#cwm-watch-summary')).toContainText('Step 0 of');
  await page.locator('#cwm-watch-next').click();
  await expect(page.locator('#cwm-watch-summary')).toContainText('Step 1 of');
  // The model's planner reaches the goal G (47) on the episode's last step.
  const steps = (await page.locator('#cwm-watch-summary').textContent()).match(/in (\d+) steps/)[1];
  await page.locator('#cwm-watch-step').fill(steps);
  await expect(page.locator('#cwm-watch-summary')).toContainText(`Step ${steps} of ${steps}`);
  await expect(canvas).toHaveAttribute('data-observation', '47');
  await expect(page.locator('#cwm-watch-next')).toBeDisabled();
  await page.locator('#cwm-watch-policy').selectOption('random');
  await expect(page.locator('#cwm-watch-episode option')).toHaveCount(3);
  await expect(page.locator('#cwm-watch-summary')).toContainText('Step 0 of');

  // Q-learning inside the model solves the real CliffWalking, with no real steps beyond the dataset.
  // Both agents train in the worker as runs of the Train pane.
  await page.locator('#cwm-train').click();
  const inside = page.locator('#cwm-agents tbody tr').first();
  await expect(inside).toContainText('Q-learning inside the model (run #1)');
  await expect(inside.locator('td').nth(1)).toHaveText('565');
  await expect(inside.locator('td').nth(2)).toHaveText(/^100% of \d+$/, { timeout: 60_000 });
  await expect(inside.locator('td').nth(3)).toHaveText('-13.00');
  const real = page.locator('#cwm-agents tbody tr').nth(1);
  await expect(real).toContainText('Q-learning on the real environment (run #2)');
  await expect(real.locator('td').nth(2)).toHaveText(/% of \d+$/, { timeout: 60_000 });
  expect(Number(await real.locator('td').nth(1).textContent())).toBeGreaterThan(565);
  const runs = page.locator('#runs tbody tr');
  await expect(runs).toHaveCount(2);
  await expect(runs.nth(0).locator('.status')).toHaveText('finished');
  // A link cannot carry the model: sharing that run says so instead of linking the real one.
  await new Playground(page).show('train');
  await runs.nth(0).locator('.share').click();
  await expect(page.locator('#share-note')).toContainText('trained inside a code world model');
  await expect(page.locator('#share-link')).toBeHidden();
  // The comparison shows the search's accuracy and the R(CWM) its best model planned to, beside
  // the paper's Table 9 (1.00 / 1.01 for Llama's GIF-MCTS on CliffWalking).
  const cliff = page.locator('#cwm-comparison tbody tr').nth(1);
  await expect(cliff.locator('td').nth(1)).toHaveText('1.00 / 1.00 (1 search, simulated; R of 1 planned)');
  await expect(cliff.locator('td').nth(3)).toHaveText('1.00 / 1.01');
  // It is kept with the search: a reload shows it again.
  await page.reload();
  await expect(cliff.locator('td').nth(1)).toHaveText('1.00 / 1.00 (1 search, simulated; R of 1 planned)');
  expect(errors).toEqual([]);
});

test('offline, a CartPole world model plans in Pyodide, an episode per run: the perfect model plans as the oracle, as `rlcg cwm plan` does, and its episode is watched on the cart and pole', async ({ page }) => {
  test.setTimeout(600_000);
  const errors = watchErrors(page);
  const playground = new Playground(page);
  await playground.open();
  // The same search as `rlcg search --task CartPole-v1 --seed 1`: perfect at the 4th call.
  await playground.search({ task: 'CartPole-v1', method: 'gif-mcts' }, 'Search over: a model predicts every transition.', 180_000);
  await expect(page.locator('#search-summary')).toContainText('4 LLM calls · best score 1.000');
  await expect(page.locator('#cwm-plan-note')).toContainText('each planning episode is one run in Pyodide');
  // A continuous model is not a table an agent could train inside.
  await expect(page.locator('#cwm-train')).toBeDisabled();
  await page.locator('#cwm-plan').click();
  // Every oracle and model episode lasts CartPole's 500 steps, 25 simulations each.
  await expect(page.locator('#cwm-returns')).toContainText('R(CWM) = 1.000', { timeout: 420_000 });
  // The numbers of `rlcg cwm plan --env CartPole-v1 --quick --episodes 3 --seed 1` in python3: the
  // planner and the environments give the same episodes in Pyodide.
  await expect(page.locator('#cwm-returns')).toContainText('mean return random 16.3 · oracle 500.0 · this model 500.0');
  const stepped = Number((await page.locator('#cwm-returns').textContent()).match(/stepped (\d+) times in Pyodide/)[1]);
  expect(stepped).toBeGreaterThan(100_000);
  await expect(page.locator('#cwm-error')).toBeHidden();

  // The model's first episode on the cart and pole, from its start to the end.
  const canvas = page.locator('#cwm-watch canvas[data-env="CartPole-v1"]');
  await expect(canvas).toHaveAttribute('data-observation', /^-?0\.0\d*,/);
  await expect(page.locator('#cwm-watch .gym-caption')).toContainText('cart at x = ');
  const summary = page.locator('#cwm-watch-summary');
  await expect(summary).toContainText('Step 0 of');
  const steps = Number((await summary.textContent()).match(/in (\d+) steps/)[1]);
  expect(steps).toBeGreaterThan(100);
  await page.locator('#cwm-watch-step').fill(String(steps));
  await expect(summary).toContainText(`Step ${steps} of ${steps}`);
  await expect(page.locator('#cwm-watch-next')).toBeDisabled();
  // Beside the paper's Table 9: Llama's GIF-MCTS CartPole model had accuracy 1.00 and R 1.11.
  const cart = page.locator('#cwm-comparison tbody tr').first();
  await expect(cart.locator('td').nth(1)).toHaveText('1.00 / 1.00 (1 search, simulated; R of 1 planned)');
  await expect(cart.locator('td').nth(3)).toHaveText('1.00 / 1.11');
  expect(errors).toEqual([]);
});

test('the run form trains seed 004\'s environments: Q-learning walks CliffWalking\'s optimal path, and a table agent is refused on CartPole', async ({ page }) => {
  const errors = watchErrors(page);
  const playground = new Playground(page);
  await playground.open();
  await expect(page.locator('#env option')).toHaveCount(9);
  const row = await playground.train({ env: 'CliffWalking-v0', agent: 'q-learning', episodes: 500, seed: 1 });
  expect(parseFloat(await page.locator('#greedy-success').textContent())).toBe(100);
  await expect(page.locator('#greedy-mean-return')).toHaveText('-13.00');
  await expect(row).toContainText('CliffWalking-v0');
  // The greedy episode on CliffWalking's grid, step by step, to the goal (47) after the 13 steps.
  const grid = page.locator('.trace canvas[data-env="CliffWalking-v0"]');
  await expect(grid).toHaveAttribute('data-observation', '36');
  await expect(page.locator('.trace .gym-caption')).toHaveText('row 3, column 0');
  await page.locator('.trace-next').click();
  await expect(grid).toHaveAttribute('data-observation', '24');
  for (let i = 1; i < 13; i++) await page.locator('.trace-next').click();
  await expect(page.locator('#trace-end')).toHaveText('The episode ended after 13 steps, return -13.00, success.');
  await expect(grid).toHaveAttribute('data-observation', '47');
  await expect(page.locator('.trace-next')).toBeDisabled();
  await page.locator('#env').selectOption('CartPole-v1');
  await page.locator('#agent').selectOption('q-learning');
  await page.locator('#start').click();
  await expect(page.locator('#error')).toContainText("CartPole-v1's states are continuous: train the dqn");
  expect(errors).toEqual([]);
});

test('each Gymnasium environment\'s greedy episode is drawn on its own canvas and stepped through', async ({ page }) => {
  test.setTimeout(240_000);
  const errors = watchErrors(page);
  const playground = new Playground(page);
  await playground.open();
  const runs = [
    // The run form's default episodes for Taxi solve it: the greedy episode delivers the passenger.
    { env: 'Taxi-v3', agent: 'q-learning', caption: /^taxi at row \d, column \d; passenger at [RGYB]; destination [RGYB]$/, end: /^The episode ended after \d+ steps, return \d+\.00, success\.$/ },
    { env: 'Blackjack-v1', agent: 'q-learning', episodes: 2000, caption: /^player's sum \d+, dealer shows (an ace|\d+), usable ace: (yes|no)$/, end: /^The episode ended after \d+ steps?, return (-1|0|1)\.00/ },
    { env: 'CartPole-v1', agent: 'dqn', episodes: 3, caption: /^cart at x = -?\d\.\d{3}, velocity -?\d\.\d{3}; pole at -?\d+\.\d°/ },
    { env: 'MountainCar-v0', agent: 'dqn', episodes: 2, caption: /^position -0\.[45]\d\d, velocity 0\.0000; the flag is at 0\.5$/ },
    { env: 'Acrobot-v1', agent: 'dqn', episodes: 2, caption: /^θ1 = -?\d+\.\d°, θ2 = -?\d+\.\d°; the tip is at height -[12]\.\d\d \(the line is at 1\)$/ },
  ];
  for (const { env, agent, episodes, caption, end } of runs) {
    await playground.train({ env, agent, episodes, seed: 1 }, 120_000);
    const canvas = page.locator(`.trace canvas[data-env="${env}"]`);
    await expect(canvas).toBeVisible();
    await expect(page.locator('.trace .gym-caption')).toHaveText(caption);
    if (end) {
      // A short episode: to its end frame.
      while (await page.locator('.trace-next').isEnabled()) await page.locator('.trace-next').click();
      await expect(page.locator('#trace-end')).toHaveText(end);
    } else {
      // A long one: one step on, the state is another.
      const start = await canvas.getAttribute('data-observation');
      await page.locator('.trace-next').click();
      await expect(canvas).not.toHaveAttribute('data-observation', start);
    }
  }
  expect(errors).toEqual([]);
});

test('a world-model search is shared like the others: its link replays it exactly in a fresh browser, and its export imports there', async ({ page, browser }) => {
  test.setTimeout(240_000);
  const errors = watchErrors(page);
  const playground = new Playground(page);
  await playground.open();
  await playground.search({ task: 'CliffWalking-v0', method: 'gif-mcts' }, 'Search over: a model predicts every transition.', 180_000);
  // The link and fingerprint `rlcg search --task CliffWalking-v0 --seed 1 --json` prints.
  const link = await page.locator('#search-link').inputValue();
  expect(link).toMatch(/#\/search\?v=1&search=gif-mcts&task=CliffWalking-v0&budget=20&seed=1&llm=simulated&r\.best=1\.000&r\.calls=7&r\.fp=d2c83a78e9808991$/);
  const download = page.waitForEvent('download');
  await page.locator('#search-export').click();
  const exported = await (await download).path();

  const { fresh: other, freshErrors: otherErrors } = await freshPage(browser);
  await other.goto(link);
  await expect(other.locator('#search-replay')).toContainText('This replay is the shared search exactly: the same 7 LLM calls and programs, best score 1.000', { timeout: 180_000 });
  await expect(other.locator('#search-task')).toHaveValue('CliffWalking-v0');
  await expect(other.locator('#cwm-dataset')).toContainText('565 transitions');
  await other.locator('#search-import').setInputFiles(exported);
  await expect(other.locator('#search-history tbody tr')).toHaveCount(2);
  await expect(other.locator('#search-history tbody tr').nth(1)).toContainText('gif-mcts on CliffWalking-v0 (seed 1, simulated)');
  await other.context().close();
  expect(errors).toEqual([]);
  expect(otherErrors).toEqual([]);
});

test('a world model of your own: the bank\'s correct CliffWalking model scores 1.000 and its agent walks the real cliff; pasted with a reward bug it scores lower and its agent does worse', async ({ page }) => {
  test.setTimeout(360_000);
  const errors = watchErrors(page);
  await new Playground(page).open('./', 'search');
  await page.locator('#editor summary').click();
  await page.locator('#edit-env').selectOption('CliffWalking-v0');
  await page.locator('#edit-start-correct').click();
  const correct = await page.locator('#edit-code').inputValue();
  expect(correct).toContain('class Environment');
  // Scores, plans with and trains Q-learning inside the model in the editor: its accuracy and the
  // greedy return of the agent trained inside it, on the real environment.
  const workWith = async (code) => {
    await page.locator('#edit-code').fill(code);
    await page.locator('#edit-use').click();
    await expect(page.locator('#cwm-which')).toContainText('Working with your own model.');
    await page.locator('#cwm-score').click();
    await expect(page.locator('#cwm-accuracy')).toContainText('Accuracy', { timeout: 60_000 });
    const accuracy = Number((await page.locator('#cwm-accuracy').textContent()).match(/Accuracy ([\d.]+) \(official\)/)[1]);
    await page.locator('#cwm-plan').click();
    await expect(page.locator('#cwm-returns')).toContainText('R(CWM) =', { timeout: 120_000 });
    await page.locator('#cwm-train').click();
    const inside = page.locator('#cwm-agents tbody tr').first();
    await expect(inside).toContainText('Q-learning inside the model');
    await expect(inside.locator('td').nth(3)).toHaveText(/^-?\d+\.\d\d$/, { timeout: 120_000 });
    return { accuracy, realReturn: Number(await inside.locator('td').nth(3).textContent()) };
  };
  const right = await workWith(correct);
  expect(right).toEqual({ accuracy: 1, realReturn: -13 });
  await expect(page.locator('#cwm-transitions tr.first-miss')).toHaveCount(0);

  // A reward bug: falling off the cliff pays 10 instead of costing 100.
  const buggy = correct.replace('return self.position, -100, False', 'return self.position, 10, False');
  expect(buggy).not.toBe(correct);
  const wrong = await workWith(buggy);
  expect(wrong.accuracy).toBeLessThan(1);
  await expect(page.locator('#cwm-transitions tr.first-miss td').nth(6)).toHaveText('✗'); // the reward
  expect(wrong.realReturn).toBeLessThan(right.realReturn);
  await page.locator('#cwm-own-leave').click();
  await expect(page.locator('#cwm-tools')).toBeHidden();
  expect(errors).toEqual([]);
});
