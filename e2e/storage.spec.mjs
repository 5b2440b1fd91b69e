// Keeping runs of any size the form allows (issue 22): a million-episode run trains, is kept and
// reopens finished without stalling the page; a browser that refuses storage gets one plain message.
import { test, expect } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { Playground, freshPage, keptRun, untilKept, watchErrors } from './helpers.mjs';

/** Records every main-thread task longer than 50 ms (the Long Tasks API), from page load on. */
function watchLongTasks(page) {
  return page.addInitScript(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        window.longTasks.push({ at: Math.round(entry.startTime), ms: Math.round(entry.duration) });
      }
    }).observe({ type: 'longtask', buffered: true });
  });
}

/** The long tasks since `since` (milliseconds on the page's clock). */
const longTasksSince = (page, since) => page.evaluate((since) => window.longTasks.filter((t) => t.at >= since), since);
const pageClock = (page) => page.evaluate(() => performance.now());

/**
 * A task this long is a stall a person sees. The speed target itself, no task over 100 ms, is
 * measured (this spec logs every long task) and reported in docs/benchmarks.md, not asserted: on
 * two shared cores the longest task of one build ranged from 64 to 133 ms from run to run.
 */
const STALL_MS = 250;

test('a million-episode orchestrator run trains, is kept and reopens finished, without stalling the page', async ({ page }) => {
  test.setTimeout(300_000);
  const errors = watchErrors(page);
  await watchLongTasks(page);
  await new Playground(page).open();
  const since = await pageClock(page);
  const started = Date.now();
  const row = await new Playground(page).startRun({ env: 'orchestrator', agent: 'q-learning', episodes: 1_000_000, seed: 5 });
  await expect(row.locator('.status')).toHaveText('finished', { timeout: 240_000 });
  const trained = (Date.now() - started) / 1000;
  await expect(row.locator('.done')).toHaveText('1000000');
  await row.locator('.select').click();
  const fingerprint = await page.locator('#fingerprint').textContent();
  const success = await page.locator('#greedy-success').textContent();
  await untilKept(page, 1, { episodes: 1_000_000, finished: true });
  const training = await longTasksSince(page, since);
  console.log(`1,000,000 episodes trained and drawn in ${trained.toFixed(1)} s; long tasks: ${JSON.stringify(training)}`);
  const usage = await page.evaluate(async () => (await navigator.storage.estimate()).usage);
  console.log(`storage used: ${(usage / 1e6).toFixed(1)} MB`);
  expect(Math.max(0, ...training.map((t) => t.ms))).toBeLessThanOrEqual(STALL_MS);

  // Reopened, the run is finished, with the same records, plot, tree and results.
  const reopening = Date.now();
  await page.reload();
  const again = page.locator('#runs tbody tr').first();
  await expect(again.locator('.status')).toHaveText('finished', { timeout: 60_000 });
  const reopened = (Date.now() - reopening) / 1000;
  await expect(again.locator('.done')).toHaveText('1000000');
  await again.locator('.select').click();
  await expect(page.locator('#fingerprint')).toHaveText(fingerprint);
  await expect(page.locator('#greedy-success')).toHaveText(success);
  await expect(page.locator('#q-table')).toBeVisible();
  await page.waitForTimeout(2_000);
  const reopenTasks = await longTasksSince(page, 0);
  console.log(`reopened finished in ${reopened.toFixed(1)} s; long tasks: ${JSON.stringify(reopenTasks)}`);
  expect(Math.max(0, ...reopenTasks.map((t) => t.ms))).toBeLessThanOrEqual(STALL_MS);
  expect(errors).toEqual([]);
});

test('a browser that refuses storage gets one plain message, the run stays on the page, and nothing retries; an edited prompt stays in use and says it was not kept', async ({ page }) => {
  const errors = watchErrors(page);
  await page.addInitScript(() => {
    window.refusedWrites = 0;
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (...args) {
      if (this.name === 'runs') {
        window.refusedWrites += 1;
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      }
      if (this.name === 'settings') throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return put.apply(this, args);
    };
  });
  await new Playground(page).open();
  const row = await new Playground(page).startRun({ env: 'orchestrator', agent: 'q-learning', episodes: 300, seed: 7 });
  await expect(row.locator('.status')).toHaveText('finished', { timeout: 60_000 });
  const message = 'This browser refused to keep run #1: its storage for this site is full. The run stays on this page '
    + 'until you close or reload it (export it as JSON to keep it); the runs kept before it are still kept.';
  await expect(page.locator('#error')).toContainText(message);
  await page.waitForTimeout(3_000);
  expect(await page.evaluate(() => window.refusedWrites)).toBe(1);
  await expect(page.locator('#error')).toContainText(message);
  await expect(page.locator('#error')).not.toContainText(/JsValue|undefined|Error:/);

  await new Playground(page).show('live');
  await page.locator('#prompts summary').click();
  await page.locator('#prompt-id').selectOption('orchestrator.coder');
  await page.locator('#prompt-user').fill('Write {task}. Plan: {plan}.');
  await page.locator('#prompt-save').click();
  await expect(page.locator('#prompt-message')).toHaveText(
    'In use on this page, but not kept: this browser refused to keep the prompts: its storage for this site is full.');
  await page.locator('#prompt-id').selectOption('orchestrator.planner');
  await page.locator('#prompt-id').selectOption('orchestrator.coder');
  await expect(page.locator('#prompt-user')).toHaveValue('Write {task}. Plan: {plan}.');
  expect(errors).toEqual([]);
});

test('a run kept by the earlier storage format (one JSON value) comes back and is rewritten in chunks', async ({ page, browser }) => {
  const errors = watchErrors(page);
  await new Playground(page).open();
  const row = await new Playground(page).startRun({ env: 'orchestrator', agent: 'q-learning', episodes: 300, seed: 7 });
  await expect(row.locator('.status')).toHaveText('finished', { timeout: 60_000 });
  const download = page.waitForEvent('download');
  await page.locator('#export-json').click();
  // The earlier format kept each run as its JSON export, records included.
  const [run] = JSON.parse(await readFile(await (await download).path(), 'utf8'));

  const { fresh, freshErrors } = await freshPage(browser);
  // An empty page of the same origin, to write the earlier format before the app opens the store.
  await fresh.route('**/blank.html', (route) => route.fulfill({ contentType: 'text/html', body: '<link rel="icon" href="data:,">' }));
  await fresh.goto('./blank.html');
  await fresh.evaluate((json) => new Promise((resolve, reject) => {
    const request = indexedDB.open('rlcg', 1);
    request.onupgradeneeded = () => ['runs', 'tasks', 'settings'].forEach((s) => request.result.createObjectStore(s));
    request.onerror = () => reject(request.error);
    request.onsuccess = () => {
      const tx = request.result.transaction('runs', 'readwrite');
      tx.objectStore('runs').put(json, 1);
      tx.oncomplete = () => { request.result.close(); resolve(); };
      tx.onerror = () => reject(tx.error);
    };
  }), JSON.stringify(run));
  const reference = '5e91bdbdb8c1afe8'; // orchestrator Q-learning, seed 7, 300 episodes (engine/src/run.rs)
  const check = async () => {
    const kept = fresh.locator('#runs tbody tr');
    await expect(kept).toHaveCount(1);
    await expect(kept.locator('.status')).toHaveText('finished');
    await expect(kept.locator('.done')).toHaveText('300');
    await kept.locator('.select').click();
    await expect(fresh.locator('#fingerprint')).toHaveText(reference);
  };
  await new Playground(fresh).open();
  await check();
  // Rewritten within a second or so: a description without records, and its records in one chunk.
  await expect.poll(() => keptRun(fresh, 1)).toMatchObject({ episodes: 300, chunks: 1 });
  expect((await keptRun(fresh, 1)).records).toBeUndefined();
  await fresh.reload();
  await check();
  expect(errors).toEqual([]);
  expect(freshErrors).toEqual([]);
});
