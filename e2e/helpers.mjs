// Shared by the e2e specs.
import { expect } from '@playwright/test';

/** Collects console errors and uncaught exceptions, which the page must never produce. */
export function watchErrors(page) {
  const errors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

/** Opens the page and waits until it can train. */
export async function openPage(page) {
  await page.goto('./');
  await expect(page.locator('#start')).toBeEnabled();
}

/** Fills the run form and presses Train; returns the new run's row. */
export async function startRun(page, { env, agent, episodes, seed }) {
  await page.locator('#env').selectOption(env);
  await page.locator('#agent').selectOption(agent);
  await page.locator('#episodes').fill(String(episodes));
  await page.locator('#seed').fill(String(seed));
  const before = await page.locator('#runs tbody tr').count();
  await page.locator('#start').click();
  const row = page.locator('#runs tbody tr').nth(before);
  await expect(row).toBeVisible();
  return row;
}

/** Live mode: plays the executive's task2_incorrect with the chosen policy until it ends. */
export async function playLiveEpisode(page) {
  await page.locator('#live-task').selectOption('task2_incorrect');
  await page.locator('#live-go').click();
  await expect(page.locator('#live-summary')).toBeVisible({ timeout: 60_000 });
}
