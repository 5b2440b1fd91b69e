// Shared by the e2e specs.
import { expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';

const root = new URL('../', import.meta.url);

/** A file of the repository, as text. */
export async function read(path) {
  return readFile(new URL(path, root), 'utf8');
}

/** The harness in Node as the page's worker runs it: the page's Pyodide build, judge and candidate. */
export async function harnessInNode() {
  const { loadPyodide } = await import(new URL('build/pyodide/pyodide.mjs', root).href);
  const { loadPair, harnessSources } = await import(new URL('static/python/pair.mjs', root).href);
  const sources = await harnessSources((path) => read(`static/python/${path}`));
  return loadPair(loadPyodide, new URL('build/pyodide/', root).pathname, sources);
}

/**
 * Serves `directory` with scripts/serve-dist.py on `port` (`flags` as its own, `--no-isolation`
 * for a plain host) and resolves once `url` answers; a test's own server, for it to stop.
 */
export async function serveFolder(directory, port, url, flags = []) {
  const script = new URL('scripts/serve-dist.py', root).pathname;
  const server = spawn('python3', [script, '--port', String(port), '--directory', directory, ...flags], { stdio: 'ignore' });
  for (let i = 0; i < 50; i++) {
    try { if ((await fetch(url)).ok) return server; } catch { /* not up yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the test server for ${directory} did not start`);
}

/** Stops a server of `serveFolder`, once. */
export function stopServer(server) {
  return new Promise((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) return resolve();
    server.once('exit', resolve);
    server.kill();
  });
}

/** Collects console errors and uncaught exceptions, which the page must never produce. */
export function watchErrors(page) {
  const errors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

/**
 * Shows `pane` ('train', 'search', …) by its link in the nav, as a person moves between panes, and
 * waits until it is on screen.
 */
export async function show(page, pane) {
  await page.locator(`#panes a[data-route="${pane}"]`).click();
  await expect(page.locator(`[data-pane="${pane}"]`)).toBeVisible();
}

/** Types `value` into the input at `selector` and commits it, as a person leaving the field does. */
export async function setInput(page, selector, value) {
  await page.locator(selector).fill(value);
  await page.locator(selector).dispatchEvent('change');
}

/** Fills "Train the model"'s form: its arm, its fields (`#model-train-NAME`) and PPO's settings (`#model-train-param-NAME`). */
export async function fillTrainingForm(page, arm, fields, settings) {
  await page.locator('#model-train-arm').selectOption(arm);
  for (const [field, value] of Object.entries(fields)) await setInput(page, `#model-train-${field}`, value);
  await page.locator('#model-train-params summary').click();
  for (const [param, value] of Object.entries(settings)) await setInput(page, `#model-train-param-${param}`, value);
}

/** A page in a new browser context (its own storage), with its errors watched. */
export async function freshPage(browser) {
  const page = await (await browser.newContext()).newPage();
  return { fresh: page, freshErrors: watchErrors(page) };
}

/** Every setting the page keeps in its IndexedDB, as one JSON text (to search for a value). */
export function storedSettings(page) {
  return page.evaluate(() => new Promise((resolve, reject) => {
    const request = indexedDB.open('rlcg');
    request.onerror = () => reject(request.error);
    request.onsuccess = () => {
      const tx = request.result.transaction('settings');
      const names = tx.objectStore('settings').getAllKeys();
      const values = tx.objectStore('settings').getAll();
      tx.oncomplete = () => {
        request.result.close();
        resolve(JSON.stringify(Object.fromEntries(names.result.map((name, i) => [name, values.result[i]]))));
      };
    };
  }));
}

/**
 * Run `id` as the page keeps it in IndexedDB: its description (spec, finished, episodes) and how
 * many chunks of records it has; null before it is first kept.
 */
export function keptRun(page, id) {
  return page.evaluate((id) => new Promise((resolve, reject) => {
    const request = indexedDB.open('rlcg');
    request.onerror = () => reject(request.error);
    request.onsuccess = () => {
      const tx = request.result.transaction(['runs', 'records']);
      const description = tx.objectStore('runs').get(id);
      const chunks = tx.objectStore('records').count(IDBKeyRange.bound([id, 0], [id, Infinity]));
      tx.oncomplete = () => {
        request.result.close();
        resolve(description.result === undefined ? null : { ...JSON.parse(description.result), chunks: chunks.result });
      };
    };
  }), id);
}

/**
 * Waits until the page has kept run `id` with `episodes` records, finished or not. The page keeps
 * runs about once a second, so a reload before that would find the run as it was a moment before.
 */
export async function untilKept(page, id, { episodes, finished }) {
  await expect.poll(async () => {
    const run = await keptRun(page, id);
    return run && { episodes: run.episodes, finished: run.finished != null };
  }, { timeout: 10_000 }).toEqual({ episodes, finished });
}

/**
 * Puts a program and its tests in the Python pane's editor with a time limit in seconds, runs it,
 * and waits for the verdict: its outcome class and reward as shown.
 */
export async function runProgram(page, code, tests = '', { limit = '5' } = {}) {
  await show(page, 'python');
  await page.locator('#editor-code').fill(code);
  await page.locator('#editor-tests').fill(tests);
  await page.locator('#editor-limit').fill(limit);
  await page.locator('#editor-run').click();
  await expect(page.locator('#outcome')).toBeVisible({ timeout: 30_000 });
  return {
    outcome: await page.locator('#outcome').textContent(),
    reward: await page.locator('#reward').textContent(),
  };
}

/**
 * The playground as the specs drive it (a page object, as leptos's examples keep theirs): the
 * steps that many specs take, written once.
 */
export class Playground {
  constructor(page) {
    this.page = page;
  }

  /**
   * Opens the page (the test server's root unless `url` says otherwise), waits until it can train,
   * and shows `pane` when given.
   */
  async open(url = './', pane) {
    await this.page.goto(url);
    await expect(this.page.locator('#start')).toBeEnabled();
    if (pane !== undefined) await this.show(pane);
  }

  /** Shows `pane` ('train', 'search', …) by its link in the nav, as a person moves between panes. */
  async show(pane) {
    await show(this.page, pane);
  }

  /** Fills the run form (fields left out keep their values) and presses Train; returns the new run's row. */
  async startRun({ env, agent, episodes, seed } = {}) {
    const page = this.page;
    await this.show('train');
    if (env !== undefined) await page.locator('#env').selectOption(env);
    if (agent !== undefined) await page.locator('#agent').selectOption(agent);
    if (episodes !== undefined) await page.locator('#episodes').fill(String(episodes));
    if (seed !== undefined) await page.locator('#seed').fill(String(seed));
    const before = await page.locator('#runs tbody tr').count();
    await page.locator('#start').click();
    const row = page.locator('#runs tbody tr').nth(before);
    await expect(row).toBeVisible();
    return row;
  }

  /** Starts a run and waits until it has finished; returns its row. */
  async train(run, timeout = 60_000) {
    const row = await this.startRun(run);
    await expect(row.locator('.status')).toHaveText('finished', { timeout });
    return row;
  }

  /**
   * Runs a program search (`task` and `method` when given; the other fields keep their values)
   * until its status reads `ending`, a text or a pattern.
   */
  async search({ task, method } = {}, ending = /^Search over: /, timeout = 120_000) {
    const page = this.page;
    await this.show('search');
    if (task !== undefined) await page.locator('#search-task').selectOption(task);
    if (method !== undefined) await page.locator('#search-method').selectOption(method);
    await page.locator('#search-go').click();
    await expect(page.locator('#search-status')).toHaveText(ending, { timeout });
  }

  /** Points live mode at an OpenAI-compatible endpoint with `model`, and `key` when given. */
  async useEndpoint(baseUrl, model, key) {
    const page = this.page;
    await this.show('live');
    await page.locator('#llm-provider').selectOption('custom');
    const fields = [['#llm-base-url', baseUrl], ['#llm-model', model]];
    if (key !== undefined) fields.push(['#llm-key', key]);
    for (const [selector, value] of fields) {
      await page.locator(selector).fill(value);
      await page.locator(selector).dispatchEvent('change');
    }
  }

  /** Live mode: plays `task` (the executive's task2_incorrect by default) with the chosen policy until it ends. */
  async playLive(task = 'task2_incorrect') {
    await this.show('live');
    await this.page.locator('#live-task').selectOption(task);
    await this.page.locator('#live-go').click();
    await expect(this.page.locator('#live-summary')).toBeVisible({ timeout: 60_000 });
  }
}

/**
 * Runs each request (a JSON string) in a fresh page Python worker (static/python/worker.mjs), as the
 * page runs people's and LLMs' programs: the first started cold, handing over its warm start, and
 * the others restored from it, two at a time. Resolves to each verdict (or `{ outcome: 'worker
 * failed', error }`), or to a string when the first worker handed over no warm start.
 */
export function runInFreshWorkers(page, requests) {
  return page.evaluate(async (requests) => {
    let warmStart;
    const run = (request) =>
      new Promise((resolve) => {
        const worker = new Worker('./python/worker.mjs', { type: 'module' });
        worker.onmessage = ({ data }) => {
          if (data.type === 'warm_start') warmStart = data;
          if (data.type === 'ready') worker.postMessage({ type: 'run', id: 1, request });
          if (data.type === 'verdict' || data.type === 'failed') {
            worker.terminate();
            resolve(data.type === 'verdict' ? JSON.parse(data.verdict) : { outcome: 'worker failed', tests: [], error: data.message });
          }
        };
        worker.postMessage({ type: 'start', warm_start: warmStart });
      });
    const verdicts = [await run(requests[0])];
    if (!warmStart) return 'the first worker handed over no warm start';
    for (let i = 1; i < requests.length; i += 2) verdicts.push(...(await Promise.all(requests.slice(i, i + 2).map(run))));
    return verdicts;
  }, requests);
}
