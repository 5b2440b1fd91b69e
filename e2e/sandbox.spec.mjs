// The red-team suite: every escape in escapes.mjs, run as a plain program in the Python pane and as
// an LLM's reply in live mode, must end in a verdict without a single request reaching the beacon
// server this suite starts. It runs against the page served with no headers at all (a plain static
// host), so that what it checks is the worker's own lockdown, not the Content-Security-Policy.
import { test, expect } from '@playwright/test';
import { createServer } from 'node:http';
import { BEACON, ESCAPES, TAMPERING, program } from './escapes.mjs';
import { Playground, runProgram } from './helpers.mjs';

const PLAIN_HOST = 'http://127.0.0.1:8766/';
// With no service worker either: on a plain host the page's worker would add the headers and the
// Content-Security-Policy (static/sw.js), and a browser without service workers gets neither.
test.use({ serviceWorkers: 'block' });
const ADD_TESTS = 'assert add(1, 2) == 3\nassert add(0, 0) == 0';

// Answers everything as generously as a server could (CORS, a script body), so that an escape that
// got out would have nothing in its way, and logs every request.
const requests = [];
let beacon;
test.beforeAll(async () => {
  beacon = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, {
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'Content-Type': 'text/javascript',
    });
    res.end(`fetch('${BEACON}/ran-code-from-the-beacon')`);
  });
  const { port } = new URL(BEACON);
  await new Promise((resolve) => beacon.listen(Number(port), '127.0.0.1', resolve));
});
test.afterAll(() => beacon.close());

/** The page's own errors. A program that calls `emscripten_run_script` through ctypes brings its
 * interpreter down, and Pyodide reports that on the Python worker's console: that is expected. */
function watchPageErrors(page) {
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/\/(python|pyodide)\//.test(msg.location().url)) errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

/** Runs `code` in the Python pane and returns the verdict's outcome once it shows. */
async function outcomeOf(page, code, tests, options) {
  return (await runProgram(page, code, tests, options)).outcome;
}

/** Gives anything an escape set going (a fetch, an import) time to reach the beacon. */
async function settle(page) {
  await page.waitForTimeout(1500);
}

test(`${Object.keys(ESCAPES).length} escapes as plain programs: each gets a verdict, none reaches the network`, async ({ page }) => {
  const errors = watchPageErrors(page);
  await page.goto(PLAIN_HOST);
  for (const [name, source] of Object.entries(ESCAPES)) {
    const outcome = await outcomeOf(page, program(source, BEACON), 'assert True');
    expect(outcome, name).toMatch(/^(pass|failed test|runtime error|timeout|tampered|compile error)$/);
    await settle(page);
    expect(requests, `${name} reached the beacon`).toEqual([]);
  }
  // The page's own work goes on: a correct program still passes.
  expect(await outcomeOf(page, 'def add(a, b):\n    return a + b\n', ADD_TESTS)).toBe('pass');
  expect(errors).toEqual([]);
});

test('a program cannot change the verdict of the programs after it', async ({ page }) => {
  await page.goto(PLAIN_HOST);
  for (const [name, source] of Object.entries(TAMPERING)) {
    await outcomeOf(page, program(source, BEACON), 'assert True');
    // Wrong on purpose: its verdict must still say so.
    expect(await outcomeOf(page, 'def add(a, b):\n    return a * b\n', ADD_TESTS), name).toBe('failed test');
    await expect(page.locator('#tests-passed')).toHaveText('1/2 tests');
  }
  expect(requests).toEqual([]);
});

test('a program that swallows the interrupt and clears the interrupt buffer still stops at its limit', async ({ page }) => {
  await page.goto('./'); // cross-origin isolated: the page interrupts first, then terminates
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  const stubborn = [
    'import gc',
    'from pyodide.ffi import JsProxy',
    'try:',
    '    buffers = [o for o in gc.get_objects() if isinstance(o, JsProxy) and "Int32Array" in str(o)]',
    'except PermissionError:  # the harness refuses gc.get_objects',
    '    buffers = []',
    'while True:',
    '    try:',
    '        while True:',
    '            try:',
    '                for buffer in buffers:',
    '                    buffer[0] = 0',
    '            except BaseException:',
    '                pass',
    '    except BaseException:',
    '        pass',
  ].join('\n');
  // It asked for every object to find the buffer: caught, and still stopped at its limit.
  expect(await outcomeOf(page, stubborn, '', { limit: '1' })).toMatch(/^(timeout|tampered)$/);
  // Interrupted where it could not catch it, or terminated after the grace period.
  await expect(page.locator('#program-error')).toContainText(/stopped at the time limit|did not finish within 1\.0 s|gc.get_objects/);
  expect(await outcomeOf(page, 'def add(a, b):\n    return a + b\n', ADD_TESTS)).toBe('pass');
});

test(`the same ${Object.keys(ESCAPES).length} escapes as an LLM's code in live mode: every episode ends, none reaches the network`, async ({ page }) => {
  test.setTimeout(600_000);
  const errors = watchPageErrors(page);
  const playground = new Playground(page);
  await playground.open(PLAIN_HOST);
  await playground.train({ env: 'orchestrator', agent: 'q-learning', episodes: 5000 });
  for (const name of Object.keys(ESCAPES)) {
    await playground.useEndpoint('http://127.0.0.1:8790/v1', `stub-escape-${name}`);
    await playground.playLive();
    // The coder's program ran in Pyodide and got a verdict, and the episode did not succeed on it.
    await expect(page.locator('#live-steps .verdict').first()).toBeVisible();
    await expect(page.locator('#live-summary')).not.toContainText(/^success/);
    await settle(page);
    expect(requests, `${name} reached the beacon`).toEqual([]);
  }
  expect(errors).toEqual([]);
});
