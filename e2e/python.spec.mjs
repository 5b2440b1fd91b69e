// The Python pane and the executive environment on real Python, in Chromium: Pyodide served with
// the page, the shared harness, the time limit, imports of task files.
import { test, expect } from '@playwright/test';
import { Playground, runProgram, show, watchErrors } from './helpers.mjs';
import { readFile } from 'node:fs/promises';

const PLAIN_HOST = 'http://127.0.0.1:8766/'; // the same build served without isolation headers
// ...and no service worker, which would add them (static/sw.js): the fallback of a browser that has
// none. e2e/hosting.spec.mjs tests the plain host with it.
test.use({ serviceWorkers: 'block' });

const ADD_TESTS = 'assert add(1, 2) == 3\nassert add(0, 0) == 0';

test('programs get StepCoder outcome classes and rewards, test by test', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('./#/python');
  await expect(page.locator('#python-state')).toContainText('loads when you first run');
  expect(await runProgram(page, 'def add(a, b):\n    return a + b\n', ADD_TESTS)).toEqual({ outcome: 'pass', reward: '+1' });
  // The next program's interpreters (the judge's and the candidate's) load after this verdict.
  await expect(page.locator('#python-state')).toContainText(/Python ready \(loaded in \d+\.\d\d s[;)]/, { timeout: 30_000 });
  await expect(page.locator('#tests-passed')).toHaveText('2/2 tests');

  expect(await runProgram(page, 'def add(a, b):\n    return a * b\n', ADD_TESTS)).toEqual({ outcome: 'failed test', reward: '-0.3' });
  await expect(page.locator('#test-results tbody tr.failed')).toHaveCount(1);
  await expect(page.locator('#test-results tbody tr.failed')).toContainText('assert add(1, 2) == 3');
  // Its "Why" says what the call returned, not only "AssertionError" (issue 73).
  await expect(page.locator('#test-results tbody tr.failed td').nth(2)).toHaveText('AssertionError: add(1, 2) returned 2, expected 3');

  expect(await runProgram(page, 'def add(a, b)\n    return a + b\n', ADD_TESTS)).toEqual({ outcome: 'compile error', reward: '-1' });
  await expect(page.locator('#program-error')).toContainText('SyntaxError');
  await expect(page.locator('#program-error')).toContainText('(line 1)');

  expect(await runProgram(page, 'def add(a, b):\n    return a / 0\n', ADD_TESTS)).toEqual({ outcome: 'runtime error', reward: '-0.6' });
  await expect(page.locator('#test-results')).toContainText('ZeroDivisionError: division by zero (line 2)');

  // Output is captured and cut short; exits, recursion and memory bombs are verdicts, not dead tabs.
  await runProgram(page, "print('x' * 100000)\nimport sys\nprint('to stderr', file=sys.stderr)\n");
  await expect(page.locator('#verdict h3').filter({ hasText: 'Output' })).toContainText('(cut short)');
  expect((await page.locator('#stdout').textContent()).length).toBe(10000);
  await expect(page.locator('#stderr')).toHaveText('to stderr\n');
  for (const [code, message] of [
    ['import sys\nsys.exit(2)\n', 'the program called exit(2)'],
    ['import os\nos._exit(1)\n', 'the program called exit(1)'],
    ['def f():\n    return f()\nf()\n', 'RecursionError'],
    ['x = [0] * (10 ** 9)\n', 'MemoryError'],
  ]) {
    expect((await runProgram(page, code)).outcome).toBe('runtime error');
    await expect(page.locator('#program-error')).toContainText(message);
  }
  // The next program is unaffected.
  expect((await runProgram(page, 'def add(a, b):\n    return a + b\n', ADD_TESTS)).outcome).toBe('pass');
  // Every interpreter after the page's first is restored from one memory snapshot, and each still
  // draws random numbers of its own.
  const draws = [];
  for (let i = 0; i < 2; i++) {
    await runProgram(page, 'import random\nprint(random.random())\n');
    draws.push(await page.locator('#stdout').textContent());
  }
  expect(draws[0]).toMatch(/^0\.\d+\n$/);
  expect(draws[1]).not.toEqual(draws[0]);

  // A bad time limit is named, and nothing runs.
  await page.locator('#editor-limit').fill('abc');
  await page.locator('#editor-run').click();
  await expect(page.locator('#python-problem')).toHaveText("time limit must be a number of seconds from 0.1 to 60, got 'abc'");
  await expect(page.locator('#outcome')).toHaveText('pass'); // the previous verdict stays
  expect(errors).toEqual([]);
});

// The warm start's fallbacks (static/python/worker.mjs), forced by serving the worker's scripts
// changed: a first worker that cannot take the snapshot leaves every later worker to start cold, one
// that cannot post its compiled module leaves them to compile their own, and without resizable
// buffers Pyodide waits for each snapshot's copy. Either way programs get the same verdicts, each in
// a fresh worker.
for (const [fallback, file, from, to] of [
  ['no memory snapshot', 'pair.mjs', 'snapshot(each) {', "snapshot(each) {\n      throw new Error('no snapshot in this test');"],
  ['no compiled module to post', 'worker.mjs', 'post({ ...message, wasm: module }, transfer);', "throw new DOMException('no module in this test', 'DataCloneError');"],
  ['no resizable buffers (Firefox before 128)', 'worker.mjs', "if (!('resize' in ArrayBuffer.prototype))", 'if (true)'],
]) {
  test(`with ${fallback}, later Python workers still start and give the same verdicts`, async ({ page }) => {
    const errors = watchErrors(page);
    const warnings = [];
    page.on('console', (message) => { if (message.type() === 'warning') warnings.push(message.text()); });
    let served = false;
    await page.route(`**/python/${file}`, async (route) => {
      // A worker retired while it loads (the first worker's successor, when there is no warm start
      // to give it) drops its request.
      const response = await route.fetch().catch(() => undefined);
      const body = await response?.text().catch(() => undefined);
      if (body === undefined) return route.abort().catch(() => {});
      expect(body).toContain(from);
      served = true;
      await route.fulfill({ response, body: body.replace(from, to) });
    });
    await page.goto('./#/python');
    for (let round = 0; round < 3; round++) {
      expect(await runProgram(page, 'def add(a, b):\n    return a + b\n', ADD_TESTS)).toEqual({ outcome: 'pass', reward: '+1' });
      expect(await runProgram(page, 'def add(a, b):\n    return a - b\n', ADD_TESTS)).toEqual({ outcome: 'failed test', reward: '-0.3' });
    }
    await expect(page.locator('#python-state')).toContainText(/Python ready \(loaded in \d+\.\d\d s[;)]/, { timeout: 30_000 });
    expect(served).toBe(true);
    if (fallback === 'no memory snapshot') expect(warnings.join('\n')).toContain('no memory snapshot of the Python interpreters: Error: no snapshot in this test');
    expect(errors).toEqual([]);
  });
}

// In CI a worker once failed to fetch Pyodide's module mid-way through 180 searches, and the whole
// re-run stopped. A worker that fails to load is started again (twice in a row at most), so a
// failure of the moment costs a program nothing; three in a row are Python's failure to start.
test('a Python worker that fails to load is started again, and the programs still get their verdicts', async ({ page }) => {
  const errors = watchErrors(page);
  const warnings = [];
  page.on('console', (message) => { if (message.type() === 'warning') warnings.push(message.text()); });
  let requests = 0;
  let refuse = new Set([3, 4]); // the first worker's and its successor's load; the next two fail
  await page.route('**/pyodide/pyodide.asm.mjs', (route) => (refuse.has(++requests) ? route.abort() : route.continue()));
  await page.goto('./#/python');
  for (let round = 0; round < 3; round++) {
    expect(await runProgram(page, 'def add(a, b):\n    return a + b\n', ADD_TESTS)).toEqual({ outcome: 'pass', reward: '+1' });
  }
  expect(requests).toBeGreaterThan(4);
  expect(warnings.filter((w) => w.includes('a Python worker failed to load')).length).toBe(2);
  // A browser refusing the resource logs it as an error; nothing else may.
  expect(errors.filter((e) => !e.includes('Failed to load resource') && !e.includes('Failed to fetch dynamically imported module'))).toEqual([]);

  // Three failures in a row: every waiting program is told, in words.
  refuse = new Set([requests + 1, requests + 2, requests + 3]);
  await page.locator('#editor-run').click();
  await expect(page.locator('#python-state')).toContainText('Python could not start', { timeout: 60_000 });
});

test('no output or exception makes a verdict unreadable, and an error text is cut where it says so', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('./#/python');
  // A lone surrogate printed, or raised: the verdict shows it replaced (U+FFFD).
  expect(await runProgram(page, "print('\\ud800')\ndef add(a, b):\n    return a + b\n", ADD_TESTS)).toEqual({ outcome: 'pass', reward: '+1' });
  await expect(page.locator('#stdout')).toHaveText('\ufffd\n');
  expect((await runProgram(page, "def add(a, b):\n    raise ValueError('\\udfff')\n", ADD_TESTS)).outcome).toBe('runtime error');
  await expect(page.locator('#test-results')).toContainText('ValueError: \ufffd');
  // A 12 MB message: its first 2000 characters, and how many were cut.
  expect((await runProgram(page, "def add(a, b):\n    raise ValueError('x' * 12_000_000)\n", ADD_TESTS)).outcome).toBe('runtime error');
  await expect(page.locator('#test-results')).toContainText(/x… \(\d+ more characters cut\)/);
  expect((await runProgram(page, 'def add(a, b):\n    return a + b\n', ADD_TESTS)).outcome).toBe('pass');
  expect(errors).toEqual([]);
});

test('coverage marks the untaken branch; the complexity badge and conditionals are shown', async ({ page }) => {
  await page.goto('./#/python');
  const code = 'def sign(x):\n    if x > 0:\n        return 1\n    elif x < 0:\n        return -1\n    return 0\n';
  await runProgram(page, code, 'assert sign(3) == 1');
  const line = (n) => page.locator(`#coverage .line[data-line="${n}"]`);
  for (const n of [1, 2, 3]) await expect(line(n)).toHaveClass(/executed/);
  for (const n of [4, 5, 6]) await expect(line(n)).toHaveClass(/missed/);
  await expect(line(2)).toContainText('◆');
  await expect(line(4)).toContainText('◆');
  await expect(page.locator('#complexity')).toHaveText('complexity 12.0 (cyclomatic 3, cognitive 2, nesting 1, 6 lines)');
});

test('an infinite loop is stopped within the limit + 1 s and the next run passes, with and without isolation', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('./#/python');
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await runProgram(page, 'x = 1', ''); // load Python first, so the clock measures the loop alone
  const loops = [
    'while True:\n    pass\n', // stopped by the interrupt
    'while True:\n    try:\n        pass\n    except BaseException:\n        pass\n', // ignores it: the worker is replaced
    'sum(range(10 ** 12))\n', // a long C call: the same
  ];
  // Each program gets a fresh interpreter, loaded while the one before ran: start the clock once it
  // is ready, so that it measures the limit alone.
  const ready = () => expect(page.locator('#python-state')).toContainText('Python ready', { timeout: 10_000 });
  // The promise (stopped within the limit + 1 s) is measured by the clock of the page that keeps it
  // (the verdict's duration: the worker's own, or the page's from the program's start to its stop),
  // not by this test's, which a busy machine delays.
  const stoppedWithin = async (ms) => {
    const duration = Number((await page.locator('#duration').textContent()).replace(' ms', ''));
    expect(duration).toBeGreaterThan(0);
    expect(duration).toBeLessThan(ms);
  };
  for (const loop of loops) {
    await ready();
    expect(await runProgram(page, loop, '', { limit: '1' })).toEqual({ outcome: 'timeout', reward: '-0.6' });
    await stoppedWithin(2000);
    expect((await runProgram(page, 'def add(a, b):\n    return a + b\n', ADD_TESTS)).outcome).toBe('pass');
  }

  // A host without COOP/COEP: no interrupt, so the worker is replaced every time.
  await page.goto(PLAIN_HOST);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
  await expect(page.locator('#python .hint').first()).toContainText('not cross-origin isolated');
  await runProgram(page, 'x = 1', '');
  await ready();
  expect(await runProgram(page, loops[0], '', { limit: '1' })).toEqual({ outcome: 'timeout', reward: '-0.6' });
  await stoppedWithin(2000);
  expect((await runProgram(page, 'def add(a, b):\n    return a + b\n', ADD_TESTS)).outcome).toBe('pass');
  expect(errors).toEqual([]);
});

test('programs cannot reach the page, its storage or the network', async ({ page }) => {
  await page.goto('./#/python');
  await runProgram(page, 'import js\n');
  await expect(page.locator('#program-error')).toContainText("No module named 'js'");
  await runProgram(page, 'import pyodide.code\npyodide.code.run_js("indexedDB")\n');
  await expect(page.locator('#program-error')).toContainText("No module named 'js'");
  await runProgram(page, 'import pyodide_js\n');
  await expect(page.locator('#program-error')).toContainText("No module named 'pyodide_js'");
});

test('task files, imported where tasks are searched: a bad line is named and nothing is imported; good files import, persist and pass', async ({ page }) => {
  const errors = watchErrors(page);
  // The Python pane lists imported tasks and points to where they are imported.
  await page.goto('./#/python');
  await page.locator('#python-imported a').click();
  await expect(page).toHaveURL(/#\/search$/);
  await expect(page.locator('[data-pane="search"]')).toBeVisible();
  await expect(page.locator('[data-pane="python"]')).toBeHidden();
  await page.locator('#import summary').click();
  const sample = await readFile(new URL('../tasks/samples/humaneval.jsonl', import.meta.url), 'utf8');
  const lines = sample.trim().split('\n');
  const broken = [lines[0], lines[1].replace('"entry_point": "is_palindrome"', '"entry_point": 7'), lines[2]].join('\n');
  await page.locator('#import-tasks').setInputFiles({ name: 'broken.jsonl', mimeType: 'application/json', buffer: Buffer.from(broken) });
  await expect(page.locator('#import-message')).toHaveText('Nothing was imported from broken.jsonl: 1 problem(s).');
  await expect(page.locator('#import-errors')).toHaveText('broken.jsonl: line 2, field `entry_point`: must be a string, not a number');

  await page.locator('#import-tasks').setInputFiles({ name: 'humaneval.jsonl', mimeType: 'application/json', buffer: Buffer.from(sample) });
  await expect(page.locator('#import-message')).toContainText('Imported 12 tasks from humaneval.jsonl');
  const apps = await readFile(new URL('../tasks/samples/apps.json', import.meta.url));
  await page.locator('#import-tasks').setInputFiles({ name: 'apps.json', mimeType: 'application/json', buffer: apps });
  await expect(page.locator('#import-message')).toContainText('Imported 4 tasks from apps.json');

  await expect(page.locator('#search-task option[value="imported:apps-sum"]')).toHaveCount(1);

  // Imported tasks survive a reload, and load into the Python pane's editor.
  await page.reload();
  await page.locator('#import summary').click();
  await expect(page.locator('#import')).toContainText('16 imported tasks kept in this browser.');
  await show(page, 'python');
  await page.locator('#editor-task').selectOption('imported · apps-sum');
  await expect(page.locator('#python')).toContainText('Plus 3 input/output tests');
  await page.locator('#editor-run').click();
  await expect(page.locator('#outcome')).toHaveText('pass', { timeout: 30_000 });
  await show(page, 'search');
  await page.locator('#check-tasks').click();
  await expect(page.locator('#check-summary')).toContainText('16/16 reference solutions pass', { timeout: 60_000 });

  // A file dropped on the import area imports like a chosen one (an id already there is replaced).
  const dropped = await page.evaluateHandle((text) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], 'dropped.jsonl', { type: 'application/json' }));
    return transfer;
  }, lines[0]);
  await page.locator('#import').dispatchEvent('drop', { dataTransfer: dropped });
  await expect(page.locator('#import-message')).toContainText('Imported 1 tasks from dropped.jsonl');
  await expect(page.locator('#import')).toContainText('16 imported tasks kept in this browser.');

  // Forgetting them lasts across a reload.
  await page.locator('#forget-tasks').click();
  await expect(page.locator('#import')).toContainText('0 imported tasks kept in this browser.');
  await page.reload();
  await page.locator('#import summary').click();
  await expect(page.locator('#import')).toContainText('0 imported tasks kept in this browser.');
  expect(errors).toEqual([]);
});

test('the executive environment on real Python reproduces the recorded verdicts and the same run', async ({ page }) => {
  const errors = watchErrors(page);
  const playground = new Playground(page);
  await playground.open();
  await playground.train({ env: 'executive', agent: 'q-learning', episodes: 300, seed: 4 });
  const recorded = await page.locator('#fingerprint').textContent();

  await page.locator('#real-python').check();
  await page.locator('#start').click();
  await expect(page.locator('#python-verdicts')).toHaveText(
    'Pyodide ran the 10 programs of the executive tasks: all 10 verdicts equal the recorded ones.', { timeout: 30_000 });
  await expect(page.locator('#runs tbody tr').nth(1).locator('.status')).toHaveText('finished', { timeout: 60_000 });
  await expect(page.locator('#fingerprint')).toHaveText(recorded);
  expect(errors).toEqual([]);
});
