// The page as a project's GitHub Pages hosts it: the built page under a sub-path (/play/) of a plain
// static server that sends no special headers. The page's service worker adds the isolation headers
// (static/sw.js), so after one reload the page interrupts a runaway program; it trains, works
// offline after one visit, and opens a share link.
import { test, expect } from '@playwright/test';
import { access, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Playground, runProgram, serveFolder, stopServer as stop, watchErrors } from './helpers.mjs';
import { pageFolder } from './page-folder.mjs';

const port = 8768;
const site = `http://127.0.0.1:${port}/`;
const url = `${site}play/`;

/** A plain static server (no isolation headers, no policy) of a site that has the page at /play/. */
async function servePlainSite() {
  const root = await mkdtemp(path.join(tmpdir(), 'rlcg-site-'));
  await symlink(pageFolder, path.join(root, 'play'));
  return { server: await serveFolder(root, port, url, ['--no-isolation']), root };
}

test('under a sub-path of a host that sends no headers: isolated by the service worker, trains, interrupts, works offline, opens a share link', async ({ browser }) => {
  test.setTimeout(240_000);
  const { server, root } = await servePlainSite();
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    const first = await fetch(url);
    expect(first.headers.get('cross-origin-opener-policy')).toBeNull();
    expect(first.headers.get('cross-origin-embedder-policy')).toBeNull();

    // The first load is not isolated; the page reloads itself once the service worker controls it.
    await page.goto(url);
    await page.waitForFunction(() => crossOriginIsolated && navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });
    await expect(page.locator('#isolation')).toBeHidden();
    const playground = new Playground(page);
    await expect(page.locator('#start')).toBeEnabled();
    const row = await playground.train({ env: 'orchestrator', agent: 'q-learning', episodes: 300, seed: 7 });
    const fingerprint = await page.locator('#fingerprint').textContent();

    // A runaway program is interrupted where it runs, not stopped by restarting Python.
    await expect(page.locator('#python .hint').first()).toContainText('Runaway programs are interrupted');
    await runProgram(page, 'x = 1');
    // Each program gets fresh interpreters, loaded after the verdict before: the clock starts once they are.
    await expect(page.locator('#python-state')).toContainText('Python ready', { timeout: 30_000 });
    const started = Date.now();
    expect(await runProgram(page, 'while True:\n    pass\n', '', { limit: '1' })).toEqual({ outcome: 'timeout', reward: '-0.6' });
    expect(Date.now() - started).toBeLessThan(2300);
    await expect(page.locator('#program-error')).toContainText('the run was stopped at the time limit');
    expect((await runProgram(page, 'def add(a, b):\n    return a + b\n', 'assert add(1, 2) == 3')).outcome).toBe('pass');

    // The share link names the page under its sub-path.
    await playground.show('train');
    await row.locator('.share').click();
    const link = await page.locator('#share-link').inputValue();
    expect(link.startsWith(`${url}#/train?v=1&env=orchestrator&agent=q-learning&seed=7&episodes=300`)).toBe(true);

    // With the server gone and the network off, the page loads from the service worker's cache,
    // still isolated, and the link trains the same run again.
    await stop(server);
    await context.setOffline(true);
    await page.reload();
    await expect(page.locator('#start')).toBeEnabled();
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    const linked = await context.newPage();
    const linkedErrors = watchErrors(linked);
    await linked.goto(link);
    await expect(linked.locator('#runs tbody tr .status')).toHaveText('finished', { timeout: 60_000 });
    await expect(linked.locator('#fingerprint')).toHaveText(fingerprint);
    expect(errors).toEqual([]);
    expect(linkedErrors).toEqual([]);
  } finally {
    await context.close();
    await stop(server);
    await rm(root, { recursive: true, force: true });
  }
});

test('a user who began before the service worker took control is offered the reload, not given it', async ({ browser }) => {
  const { server, root } = await servePlainSite();
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(url);
    await page.locator('#episodes').waitFor();
    // A key pressed while the service worker still installs (it caches Pyodide first), in one step
    // with the check that it has not taken control yet.
    const beforeControl = await page.evaluate(() => {
      dispatchEvent(new KeyboardEvent('keydown', { key: 'End' }));
      return navigator.serviceWorker.controller === null;
    });
    expect(beforeControl).toBe(true);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });
    await expect(page.locator('#isolation')).toBeVisible();
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
    await Promise.all([page.waitForEvent('load'), page.locator('#apply-isolation').click()]);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  } finally {
    await context.close();
    await stop(server);
    await rm(root, { recursive: true, force: true });
  }
});

// Netlify and Cloudflare Pages read a _headers file: a path pattern, then its headers indented.
test('the build writes _headers with every header of static/headers.json, the Python worker\'s policy on its folder', async () => {
  const wanted = JSON.parse(await readFile(new URL('../static/headers.json', import.meta.url), 'utf8'));
  const text = await readFile(path.join(pageFolder, '_headers'), 'utf8');
  const rules = {};
  let current = null;
  for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
    if (!line.startsWith(' ')) {
      current = line.trim();
      rules[current] = {};
    } else {
      const [name, ...value] = line.trim().split(': ');
      rules[current][name] = value.join(': ');
    }
  }
  expect(Object.keys(rules)).toEqual(['/*', '/python/*']);
  expect(rules['/*']).toEqual(wanted.everywhere);
  expect(rules['/python/*']).toEqual(wanted.pythonWorker);
  // The pattern names the folder the Python worker is served from.
  await access(path.join(pageFolder, 'python', 'worker.mjs'));
});
