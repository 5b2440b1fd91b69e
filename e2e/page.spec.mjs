import { test, expect } from '@playwright/test';

/** Collects console errors and uncaught exceptions, which the page must never produce. */
function watchErrors(page) {
  const errors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

test('the page renders and explains every environment and agent', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('./');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('RL for LLM code generation');
  for (const name of ['executive', 'planner', 'orchestrator', 'q-learning', 'thompson-sampling', 'q-thompson']) {
    await expect(page.locator('.cards li strong', { hasText: new RegExp(`^${name}$`) })).toBeVisible();
  }
  // The training worker loads and says so.
  await expect(page.locator('#start')).toHaveText('Train');
  await expect(page.locator('#start')).toBeEnabled();
  expect(errors).toEqual([]);
});

test('an orchestrator Q-learning run trains in the worker and its greedy policy succeeds', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('./');
  await expect(page.locator('#start')).toBeEnabled();
  await page.locator('#env').selectOption('orchestrator');
  await page.locator('#agent').selectOption('q-learning');
  await page.locator('#episodes').fill('5000');
  await page.locator('#seed').fill('1');
  await page.locator('#start').click();
  await expect(page.locator('#summary')).toBeVisible({ timeout: 60_000 });
  const greedy = parseFloat(await page.locator('#greedy-success').textContent());
  expect(greedy).toBeGreaterThanOrEqual(95);
  const last100 = parseFloat(await page.locator('#final-success-last100').textContent());
  expect(last100).toBeGreaterThanOrEqual(90);
  expect(errors).toEqual([]);
});

test('a bad episode count gets a message naming the field, and no run starts', async ({ page }) => {
  await page.goto('./');
  await expect(page.locator('#start')).toBeEnabled();
  await page.locator('#episodes').fill('lots');
  await page.locator('#start').click();
  await expect(page.locator('#error')).toHaveText("episodes must be a whole number between 1 and 1000000, got 'lots'");
  await page.locator('#episodes').fill('0');
  await page.locator('#start').click();
  await expect(page.locator('#error')).toHaveText('episodes must be between 1 and 1000000, got 0');
  await expect(page.locator('#summary')).toHaveCount(0);
});

test('a DQN executive run trains on NdArray inside the worker (wasm) and solves every task', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('./');
  await expect(page.locator('#start')).toBeEnabled();
  await page.locator('#env').selectOption('executive');
  await page.locator('#agent').selectOption('dqn');
  await page.locator('#episodes').fill('500');
  await page.locator('#seed').fill('1');
  const started = Date.now();
  await page.locator('#start').click();
  await expect(page.locator('#summary')).toBeVisible({ timeout: 110_000 });
  console.log(`executive DQN, 500 episodes in the worker: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  expect(parseFloat(await page.locator('#greedy-success').textContent())).toBe(100);
  expect(errors).toEqual([]);
});
