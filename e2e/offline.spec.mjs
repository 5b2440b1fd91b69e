// Offline use: after one visit, the service worker serves the page, both wasm modules, the harness
// and Pyodide, so training, Python and program searches work; a new build is offered as an update
// and replaces the old cache. The page is served here from a copy of the built page by a server this test
// starts and stops, so "offline" is real.
import { test, expect } from '@playwright/test';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Playground, serveFolder, stopServer as stop } from './helpers.mjs';
import { pageFolder } from './page-folder.mjs';

const port = 8767;
const url = `http://127.0.0.1:${port}/`;
const dist = pageFolder;
const serve = (directory) => serveFolder(directory, port, url);
const rlcgCaches = (page) => page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('rlcg-')));

test('after one visit the page trains, runs Python and searches programs with the network off; a new build is offered as an update', async ({ browser }) => {
  const copy = await mkdtemp(path.join(tmpdir(), 'rlcg-offline-'));
  await cp(dist, copy, { recursive: true });
  let server = await serve(copy);
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  try {
    await page.goto(url);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
    expect(await rlcgCaches(page)).toHaveLength(1);

    await stop(server);
    await context.setOffline(true);
    await page.reload();
    await expect(page.locator('#start')).toBeEnabled();
    await new Playground(page).train({ env: 'orchestrator', episodes: 300 });
    await new Playground(page).show('python');
    await page.locator('#editor-code').fill('def add(a, b):\n    return a + b\n');
    await page.locator('#editor-tests').fill('assert add(2, 2) == 4');
    await page.locator('#editor-run').click();
    await expect(page.locator('#outcome')).toHaveText('pass', { timeout: 30_000 });
    // A program search with the simulated LLM, every program scored by Pyodide.
    await new Playground(page).search({ task: 'binary_search' }, 'Search over: a program passes every test.');

    // A new build: its service worker installs beside the old one and the page offers it.
    await context.setOffline(false);
    const sw = path.join(copy, 'sw.js');
    await writeFile(sw, (await readFile(sw, 'utf8')).replace(/"version":"([0-9a-f]+)"/, '"version":"$1-next"'));
    server = await serve(copy);
    const before = await rlcgCaches(page);
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
    await expect(page.locator('#update')).toBeVisible({ timeout: 30_000 });
    await Promise.all([page.waitForEvent('load'), page.locator('#apply-update').click()]);
    await expect.poll(() => rlcgCaches(page)).toEqual([`${before[0]}-next`]);
    await expect(page.locator('#update')).toBeHidden();
    expect(errors).toEqual([]);
  } finally {
    await context.close();
    await stop(server);
    await rm(copy, { recursive: true, force: true });
  }
});
