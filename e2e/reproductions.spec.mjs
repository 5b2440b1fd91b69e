// The About section's reproductions: seed 003's orchestrator tables, the GIF-MCTS search table and
// CWM accuracy re-run in the tab with one click each, offline, and come out as `rlcg reproduce`
// makes them: seed 003's as docs/reproductions.md has them, the searches (every program in
// Pyodide) as the quick run's pinned figures.
import { readFile } from 'node:fs/promises';
import { test, expect } from '@playwright/test';
import { Playground, watchErrors } from './helpers.mjs';

/** The rows of table `id` in `file` (the header first), cell by cell. */
async function pinnedTable(file, id) {
  const text = await readFile(new URL(`../${file}`, import.meta.url), 'utf8');
  const start = text.indexOf(`<!-- reproduce: ${id} -->`);
  const block = text.slice(start, text.indexOf('<!-- /reproduce -->', start));
  return block.split('\n').filter((l) => l.startsWith('|') && !l.startsWith('|---')).map((l) => l.slice(1, -1).split('|').map((c) => c.trim()));
}

async function rerun(page, button, file, ids, command, timeout) {
  // The line still says how the previous re-run ended: wait for this one's word first.
  const status = page.locator('#reproduce-status');
  const before = (await status.textContent()) ?? '';
  await page.locator(`#${button}`).click();
  await expect(status).not.toHaveText(before);
  await expect(status).toContainText(`the same as ${file}, cell for cell`, { timeout });
  // The time it took, for docs/benchmarks.md.
  console.log(`${button}: ${await page.locator('#reproduce-status').textContent()}`);
  for (const id of ids) {
    const table = page.locator(`#reproduction-${id}`);
    const shown = await table.locator('tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent.trim())));
    expect(shown, id).toEqual(await pinnedTable(file, id));
    await expect(table.locator('caption')).toContainText(command);
  }
}

test("seed 003's tables re-run in the tab with one click and match docs/reproductions.md cell for cell", async ({ page }) => {
  test.setTimeout(180_000);
  const errors = watchErrors(page);
  await new Playground(page).open('./', 'about');
  await rerun(page, 'reproduce-seed003', 'docs/reproductions.md', ['seed003-training', 'seed003-learned-vs-fixed'], 'rlcg reproduce --only seed003', 150_000);
  expect(errors).toEqual([]);
});

test('the GIF-MCTS search table and CWM accuracy re-run in Pyodide with one click each and match the pinned quick run', async ({ page }) => {
  test.setTimeout(600_000);
  const errors = watchErrors(page);
  await new Playground(page).open('./', 'about');
  const file = 'docs/reproductions-quick.md';
  await rerun(page, 'reproduce-search', file, ['search-bundled'], 'rlcg reproduce --only search --quick', 300_000);
  await rerun(page, 'reproduce-world-models', file, ['cwm-accuracy'], 'rlcg reproduce --only world-models --quick', 240_000);
  expect(errors).toEqual([]);
});

// Issue 73: a long job says its size before it starts, and can be cancelled.
test('a re-run says its size and time on its button, and Cancel stops it with no table', async ({ page }) => {
  const errors = watchErrors(page);
  await new Playground(page).open('./', 'about');
  // Counted from what each re-run runs.
  await expect(page.locator('#reproduce-seed003')).toHaveText("Seed 003's tables (Q-learning and q-thompson, seeds 1–20, 5000 episodes each: 40 runs, under a second)");
  await expect(page.locator('#reproduce-search')).toHaveText('The GIF-MCTS search table (the quick run: 10 tasks × seeds 1–3, 6 methods: 180 searches, about 4 minutes)');
  await expect(page.locator('#reproduce-world-models')).toHaveText('CWM accuracy (the quick run: 6 environments × seeds 1–3, 2 methods, 50 calls: 36 searches, about 70 s)');
  await expect(page.locator('#reproduce-cancel')).toBeHidden();
  await page.locator('#reproduce-search').click();
  await expect(page.locator('#reproduce-status')).toContainText(/Pyodide is running|of 180 searches/, { timeout: 60_000 });
  await page.locator('#reproduce-cancel').click();
  await expect(page.locator('#reproduce-status')).toHaveText('Cancelled: no table to compare.', { timeout: 30_000 });
  await expect(page.locator('#reproduce-search')).toBeEnabled();
  await expect(page.locator('#reproduce-cancel')).toBeHidden();
  await expect(page.locator('table.reproduction')).toHaveCount(0);
  expect(errors).toEqual([]);
});
