// Screenshots of every pane's route at 1280 and 390 px wide, into docs/screenshots/ (the README shows the
// Results pane at 1280 px), so that the next change to the page can be compared by eye. Not a
// test: `scripts/screenshots` takes them from the built test page.
import { test } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { Playground } from './helpers.mjs';

const folder = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
/** The panes in the page's order (engine::share::Pane::ALL). */
const PANES = ['train', 'results', 'python', 'live', 'search', 'stepcoder', 'about'];

for (const [width, height] of [[1280, 900], [390, 844]]) {
  test(`every pane at ${width} px`, async ({ page }) => {
    test.setTimeout(300_000);
    await page.setViewportSize({ width, height });
    const playground = new Playground(page);
    await playground.open();
    // What a class sees first: a Q-learning run on the orchestrator, and a search's tree.
    await playground.train({ env: 'orchestrator', agent: 'q-learning', episodes: 5000, seed: 1 });
    await playground.search({ task: 'binary_search', method: 'gif-mcts' });
    await page.locator('#search-tree .node[data-call="3"]').click();
    // Each pane on its route, as the screen shows it from the top: the nav and the pane.
    for (const pane of PANES) {
      await playground.show(pane);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: `${folder}${pane}-${width}.png` });
    }
  });
}
