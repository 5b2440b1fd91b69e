// Accessibility: axe-core (from npm) scans every pane, each shown by its route, with what it shows
// after use (a run trained, a search run offline, Python run) and every fold open, and fails on any
// serious or critical violation, naming the rule and the elements.
import { test, expect } from '@playwright/test';
import { createRequire } from 'node:module';
import { Playground, watchErrors } from './helpers.mjs';

const axeScript = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
/** The panes, by their routes (engine::share::Pane's names). */
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
  await playground.search({}, /^Search over/, 90_000);
  await playground.show('python');
  await page.locator('#editor-run').click();
  await expect(page.locator('#outcome')).toBeVisible({ timeout: 60_000 });
  // Every fold open, as a person exploring the page leaves it (issue 73).
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  await page.addScriptTag({ path: axeScript });
  expect(await violations(page, 'header'), 'axe-core on the header').toEqual([]);
  for (const pane of PANES) {
    await playground.show(pane);
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
    expect(await violations(page, `[data-pane="${pane}"]`), `axe-core on ${pane}`).toEqual([]);
    expect(await violations(page, '#panes'), `axe-core on the nav, on ${pane}`).toEqual([]);
  }
  expect(errors).toEqual([]);
});
