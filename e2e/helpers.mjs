// Shared by the e2e specs.
import { expect } from '@playwright/test';

/** Collects console errors and uncaught exceptions, which the page must never produce. */
export function watchErrors(page) {
  const errors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

/** Live mode: plays the executive's task2_incorrect with the chosen policy until it ends. */
export async function playLiveEpisode(page) {
  await page.locator('#live-task').selectOption('task2_incorrect');
  await page.locator('#live-go').click();
  await expect(page.locator('#live-summary')).toBeVisible({ timeout: 60_000 });
}
