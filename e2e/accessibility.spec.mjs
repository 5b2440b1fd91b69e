// Accessibility: axe-core (from npm) scans the page with every pane showing what it shows after
// use (a run trained, a search run offline, Python run) and every fold open, and fails on any serious or critical
// violation, naming the rule and the elements.
import { test, expect } from '@playwright/test';
import { createRequire } from 'node:module';
import { Playground, watchErrors } from './helpers.mjs';

const axeScript = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
/** The panes, by their sections' ids (src/nav.rs's PANES). */
const PANES = ['train', 'results', 'live', 'search', 'stepcoder', 'python', 'about'];

/** Serious and critical violations within `selector`, as `rule (impact): elements`. */
async function violations(page, selector) {
  return page.evaluate(async (selector) => {
    const result = await window.axe.run({ include: [selector] }, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }, selector);
}

test('axe-core finds no serious or critical violation on any pane', async ({ page }) => {
  const errors = watchErrors(page);
  const playground = new Playground(page);
  await playground.open();
  const row = await playground.startRun({ env: 'orchestrator', agent: 'q-learning', episodes: 300, seed: 7 });
  await expect(row.locator('.status')).toHaveText('finished', { timeout: 60_000 });
  await page.locator('#search-go').click();
  await expect(page.locator('#search-status')).toContainText('Search over', { timeout: 90_000 });
  await page.locator('#editor-run').click();
  await expect(page.locator('#outcome')).toBeVisible({ timeout: 60_000 });
  // Every fold open, as a person exploring the page leaves it (issue 73).
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  await page.addScriptTag({ path: axeScript });
  for (const pane of ['header', ...PANES.map((id) => `#${id}`)]) {
    expect(await violations(page, pane), `axe-core on ${pane}`).toEqual([]);
  }
  expect(errors).toEqual([]);
});
