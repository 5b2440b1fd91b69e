import { test, expect } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { Playground, freshPage, storedSettings, untilKept, watchErrors } from './helpers.mjs';

const STUB = 'http://127.0.0.1:8790';
const KEY = 'sk-e2e-SECRET-0123456789abcdefXYZ';

/** Opens the page and trains orchestrator Q-learning (seed 1, 5000 episodes) to the end. */
async function trainOrchestrator(page) {
  const playground = new Playground(page);
  await playground.open();
  await playground.train({ env: 'orchestrator', agent: 'q-learning', episodes: 5000, seed: 1 });
}

/** Trains the orchestrator policy, then validates it on seed 003's five tasks against the stub's `model`. */
async function validateOnSeed003(page, model) {
  await trainOrchestrator(page);
  await useStub(page, model);
  await page.locator('#live-validate').click();
  await expect(page.locator('#live-status')).toHaveText('Validation over: 10 of 10 episodes played.', { timeout: 120_000 });
}

/** Points live mode at the stub with `model` and the test key. */
async function useStub(page, model) {
  await new Playground(page).useEndpoint(`${STUB}/v1`, model, KEY);
}

test('offline, a trained orchestrator policy drives the simulated LLM with Pyodide verdicts, and compares with the pipeline', async ({ page }) => {
  const errors = watchErrors(page);
  await trainOrchestrator(page);
  await expect(page.locator('#live-policy option').first()).toContainText('#1 orchestrator · q-learning');
  await new Playground(page).playLive();
  // Seed 003's learned policy: coder first, then the tester, whose verdict comes from Pyodide.
  const steps = page.locator('#live-steps li');
  await expect(steps.first().locator('strong')).toHaveText('coder');
  await expect(steps.nth(1).locator('strong')).toHaveText('tester');
  await expect(steps.nth(1).locator('.verdict')).toContainText(/tests passed · \d+ lines ran/);
  const timeline = page.locator('#live-timeline tbody tr');
  await expect(timeline.first()).toHaveClass(/task/);
  await expect(page.locator('#live-timeline tr.code').first()).toBeVisible();
  await expect(page.locator('#live-timeline tr.test_result').first()).toBeVisible();
  await expect(page.locator('#live-summary')).toContainText(/agent calls \d+ · LLM calls \d+ · test runs \d+ · tokens \d+/);

  await page.locator('#live-compare').click();
  await expect(page.locator('#live-history tbody tr')).toHaveCount(2, { timeout: 60_000 });
  const pipeline = page.locator('#live-history tbody tr').nth(1);
  await expect(pipeline.locator('td').first()).toContainText('fixed pipeline: planner');
  await expect(page.locator('#live-steps li').first().locator('strong')).toHaveText('planner');

  // Seed 003's validation works offline too; it needs a trained policy to compare.
  await page.locator('#live-validate').click();
  await expect(page.locator('#live-status')).toHaveText('Validation over: 10 of 10 episodes played.', { timeout: 120_000 });
  await expect(page.locator('#validation-table tbody tr')).toHaveCount(5);
  await expect(page.locator('#calibration-table tbody tr')).toHaveCount(5);
  await page.locator('#live-policy').selectOption('pipeline-orchestrator');
  await page.locator('#live-validate').click();
  await expect(page.locator('#live-error')).toContainText('choose a trained policy to validate');
  expect(errors).toEqual([]);
});

test('against an OpenAI-compatible server the reply streams in, the episode succeeds, and the key stays out of links, exports and workers', async ({ page }) => {
  const errors = watchErrors(page);
  await trainOrchestrator(page);
  await useStub(page, 'stub-coder');
  await new Playground(page).playLive();
  await expect(page.locator('#live-summary')).toContainText(/^success · return 10\.1 · agent calls 2 · LLM calls 1 · test runs 1 · tokens \d+ \(100 prompt/);
  // An endpoint's speed is timed from the request to the reply's last byte; its machine is not known here.
  await expect(page.locator('#live-summary')).toContainText(/ completion\), written at \d+\.\d tokens\/s · cost /);
  await expect(page.locator('#live-stream')).toContainText('It handles every case.');
  await expect(page.locator('#live-steps li').nth(1).locator('.verdict')).toContainText('pass: 5/5 tests passed');
  const auth = await (await fetch(`${STUB}/last-authorization`)).json();
  expect(auth.authorization).toBe(`Bearer ${KEY}`);

  // Not in the address, the share link, the exports, the stored settings or any worker's scope.
  expect(page.url()).not.toContain(KEY);
  await new Playground(page).show('train');
  await page.locator('#runs tbody tr .share').first().click();
  expect(await page.locator('#share-link').inputValue()).not.toContain(KEY);
  for (const button of ['#export-json', '#export-csv']) {
    const download = page.waitForEvent('download');
    await page.locator(button).click();
    expect(await readFile(await (await download).path(), 'utf8')).not.toContain(KEY);
  }
  const local = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  const settings = await storedSettings(page);
  expect(local).not.toContain(KEY);
  expect(settings).not.toContain(KEY);
  expect(settings).toContain('stub-coder');
  for (const worker of page.workers()) {
    // The Python worker refuses eval to programs, Playwright's evaluate included; the check inside
    // Python below covers it.
    if (worker.url().includes('/python/')) continue;
    const found = await worker.evaluate((key) => Object.getOwnPropertyNames(self).some((name) => {
      try { return String(self[name]).includes(key) || JSON.stringify(self[name] ?? null).includes(key); } catch { return false; }
    }), KEY);
    expect(found, worker.url()).toBe(false);
  }
  // Inside Python: nothing the interpreter's modules hold mentions the key (built here from pieces,
  // so this program's own text does not contain it). The harness refuses programs `gc`, so the
  // program walks what the modules reach instead.
  const [head, tail] = [KEY.slice(0, 10), KEY.slice(10)];
  await new Playground(page).show('python');
  await page.locator('#editor-code').fill(
    `import sys\nkey = ${JSON.stringify(head)} + ${JSON.stringify(tail)}\n` +
    'seen, hits, stack = set(), 0, list(sys.modules.values())\n' +
    'while stack:\n    o = stack.pop()\n    if id(o) in seen:\n        continue\n    seen.add(id(o))\n' +
    '    if isinstance(o, str):\n        hits += key in o and o is not key\n' +
    '    elif isinstance(o, dict):\n        stack.extend(o.keys())\n        stack.extend(o.values())\n' +
    '    elif isinstance(o, (list, tuple, set, frozenset)):\n        stack.extend(o)\n' +
    '    elif type(o) is type(sys):\n        stack.append(vars(o))\n' +
    'print("key-hits", hits)\n');
  await page.locator('#editor-tests').fill('');
  await page.locator('#editor-run').click();
  await expect(page.locator('#stdout')).toContainText('key-hits 0', { timeout: 30_000 });
  await new Playground(page).show('live');

  // Ticking "remember" keeps the key in this browser's localStorage (which no worker can read, unlike
  // the IndexedDB of the other settings), and unticking removes it.
  await page.locator('#llm-remember').check();
  expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).toContain(KEY);
  expect(await storedSettings(page)).not.toContain(KEY);
  await page.locator('#llm-remember').uncheck();
  expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(KEY);
  expect(errors).toEqual([]);
});

test('rate limits are retried after Retry-After; a refused key, malformed JSON and a reply without code get clear messages', async ({ page }) => {
  const errors = watchErrors(page);
  await trainOrchestrator(page);

  await useStub(page, `stub-429-${Date.now()}`);
  await page.locator('#live-task').selectOption('task2_incorrect');
  await page.locator('#live-go').click();
  await expect(page.locator('#live-status')).toContainText('HTTP 429: rate limited. The server said: Rate limit reached Retrying in 1.0 s');
  await expect(page.locator('#live-summary')).toContainText(/^success/, { timeout: 30_000 });

  await useStub(page, 'stub-401');
  await new Playground(page).playLive();
  await expect(page.locator('#live-status')).toContainText('HTTP 401: the API key is missing or wrong');
  await expect(page.locator('#live-timeline tr.error').first()).toContainText('[hidden]');
  expect(await page.locator('#live').innerText()).not.toContain(KEY);

  await useStub(page, 'stub-malformed');
  await new Playground(page).playLive();
  await expect(page.locator('#live-timeline tr.error').first()).toContainText('a streamed chunk is not JSON');

  await useStub(page, 'stub-nocode');
  await new Playground(page).playLive();
  await expect(page.locator('#live-timeline tr.error').first()).toContainText("the coder's reply has no Python code: I'm sorry");

  await useStub(page, 'no-such-model');
  await new Playground(page).playLive();
  await expect(page.locator('#live-status')).toContainText('HTTP 404: unknown model "no-such-model"');
  // Chromium logs each refused request itself; anything else would be the page's fault.
  expect(errors.filter((e) => !e.startsWith('Failed to load resource: the server responded with a status of'))).toEqual([]);
});

test('prompts are editable, checked before use, and restorable to the defaults', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('./#/live');
  await page.locator('#prompts summary').click();
  await page.locator('#prompt-id').selectOption('orchestrator.coder');
  await expect(page.locator('#prompt-user')).toHaveValue(/\{plan\}/);
  await page.locator('#prompt-user').fill('Write {task} with {cod}');
  await page.locator('#prompt-save').click();
  await expect(page.locator('#prompt-message')).toHaveText(/prompt orchestrator.coder, user: unknown placeholder \{cod\} at character 18 \(this prompt can use \{task\}, \{plan\}\)/);
  await page.locator('#prompt-user').fill('Write {task}. Plan: {plan}. Only code, please.');
  await page.locator('#prompt-save').click();
  await expect(page.locator('#prompt-message')).toHaveText('Saved.');
  await page.reload();
  await page.locator('#prompts summary').click();
  await page.locator('#prompt-id').selectOption('orchestrator.coder');
  await expect(page.locator('#prompt-user')).toHaveValue('Write {task}. Plan: {plan}. Only code, please.');
  await page.locator('#prompt-restore').click();
  await expect(page.locator('#prompt-user')).toHaveValue(/^Task:\n\{task\}/);
  // Each message waits for the browser's commit, so a reload straight after it keeps the change.
  await expect(page.locator('#prompt-message')).toHaveText('The default prompts are back.');
  await page.reload();
  await page.locator('#prompts summary').click();
  await page.locator('#prompt-id').selectOption('orchestrator.coder');
  await expect(page.locator('#prompt-user')).toHaveValue(/^Task:\n\{task\}/);
  expect(errors).toEqual([]);
});

test('endpoint settings that an older page kept in localStorage move to the settings store', async ({ page }) => {
  const errors = watchErrors(page);
  // The first page is up before the old setting appears, so it cannot race the reload for it.
  await new Playground(page).open();
  const legacy = {
    preset: 'custom', base_url: 'http://127.0.0.1:9/v1', model: 'kept-model', temperature: 0.7, top_p: 1, max_tokens: 1024,
    price_prompt_per_million: 0, price_completion_per_million: 0, timeout_s: 60, max_retries: 3,
  };
  await page.evaluate((json) => localStorage.setItem('rlcg.llm-settings', json), JSON.stringify(legacy));
  await page.reload();
  await new Playground(page).show('live');
  // Choosing a provider takes its address and model, and keeps the rest: the kept temperature.
  await page.locator('#llm-provider').selectOption('ollama');
  await expect(page.locator('#llm-temperature')).toHaveValue('0.7');
  await expect.poll(() => storedSettings(page)).toContain('llm-settings');
  // Removed once the store has it, which the page learns a moment after the store shows it.
  await expect.poll(() => page.evaluate(() => localStorage.getItem('rlcg.llm-settings'))).toBeNull();
  expect(errors).toEqual([]);
});

test('after a reload, and in a browser the run was imported into, trained policies come back from their stored checkpoints; the executive DQN drives an episode', async ({ page, browser }) => {
  const errors = watchErrors(page);
  await trainOrchestrator(page);
  await page.locator('#env').selectOption('executive');
  await page.locator('#agent').selectOption('dqn');
  await page.locator('#episodes').fill('500');
  await page.locator('#start').click();
  const dqn = page.locator('#runs tbody tr').nth(1);
  await expect(dqn.locator('.status')).toHaveText('finished', { timeout: 90_000 });
  await untilKept(page, 1, { episodes: 5000, finished: true });
  await untilKept(page, 2, { episodes: 500, finished: true });

  await page.reload();
  await expect(page.locator('#runs tbody tr')).toHaveCount(2);
  // The worker holds no agent after a reload: the orchestrator policy is loaded from its Q-table.
  await new Playground(page).playLive();
  await expect(page.locator('#live-restored')).toHaveText("Run #1's policy was loaded from its stored checkpoint.");
  await expect(page.locator('#live-steps li').first().locator('strong')).toHaveText('coder');
  await expect(page.locator('#live-summary')).toContainText(/^success/);
  // The executive DQN's network too; it generates, tests, debugs and stops on the simulated LLM.
  const dqnOption = page.locator('#live-policy option', { hasText: '#2 executive · dqn' });

  await page.locator('#live-policy').selectOption(await dqnOption.getAttribute('value'));
  await new Playground(page).playLive();
  await expect(page.locator('#live-restored')).toHaveText("Run #2's policy was loaded from its stored checkpoint.");
  await expect(page.locator('#live-summary')).toContainText(/^success/);
  const actions = await page.locator('#live-steps li strong').allTextContents();
  expect(actions[0]).toBe('generate');
  expect(actions.at(-1)).toBe('stop');
  expect(actions).toContain('test');

  // An exported run brings its checkpoint into another browser.
  await new Playground(page).show('results');
  const download = page.waitForEvent('download');
  await page.locator('#export-json').click();
  const exported = await (await download).path();
  expect(await readFile(exported, 'utf8')).toContain('"burnpack"');
  const { fresh, freshErrors } = await freshPage(browser);
  await fresh.goto('./');
  await expect(fresh.locator('#start')).toBeEnabled();
  await fresh.locator('#import-runs').setInputFiles(exported);
  await expect(fresh.locator('#runs tbody tr')).toHaveCount(2);
  await new Playground(fresh).show('live');
  await fresh.locator('#live-policy').selectOption({ index: 1 });
  await new Playground(fresh).playLive();
  await expect(fresh.locator('#live-restored')).toContainText('policy was loaded from its stored checkpoint.');
  await expect(fresh.locator('#live-summary')).toContainText(/^success/);

  // A run saved without a checkpoint (as before checkpoints existed), and one whose checkpoint is
  // damaged: both policies are rebuilt from the records, and the page says why.
  const runs = JSON.parse(await readFile(exported, 'utf8'));
  delete runs[0].finished.checkpoint;
  runs[1].finished.checkpoint.burnpack = '***';
  await new Playground(fresh).show('train');
  await fresh.locator('#import-runs').setInputFiles({ name: 'edited.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(runs)) });
  await expect(fresh.locator('#runs tbody tr')).toHaveCount(4);
  for (const [index, expected] of [
    [2, "Run #3's policy was rebuilt by training its 5000 recorded episodes again."],
    [3, "Run #4's stored checkpoint could not be used (the checkpoint's network is not base64: "],
  ]) {
    await new Playground(fresh).show('live');
    await fresh.locator('#live-policy').selectOption({ index });
    await new Playground(fresh).playLive();
    await expect(fresh.locator('#live-restored')).toContainText(expected);
    await expect(fresh.locator('#live-summary')).toContainText(/^success/);
  }
  await fresh.context().close();
  expect(errors).toEqual([]);
  expect(freshErrors).toEqual([]);
});

test("seed 003 §5.2: one action plays the learned policy and the fixed pipeline on the five tasks and shows the seed's table", async ({ page }) => {
  const errors = watchErrors(page);
  await validateOnSeed003(page, 'stub-coder');
  const rows = page.locator('#validation-table tbody tr');
  await expect(rows).toHaveCount(5);
  await expect(rows.first().locator('th')).toHaveText('seed003_sum_two_numbers');
  for (let i = 0; i < 5; i += 1) {
    // Learned: success in 2 steps, coder → tester; the pipeline plans first.
    await expect(rows.nth(i).locator('td')).toHaveText(['✓', '2', 'coder → tester', '✓', '3', 'planner → coder → tester']);
  }
  await expect(page.locator('#validation-policy-rate')).toHaveText('100%');
  await expect(page.locator('#validation-pipeline-rate')).toHaveText('100%');
  await expect(page.locator('#validation-policy-calls')).toHaveText('10');
  await expect(page.locator('#validation-pipeline-calls')).toHaveText('15');
  await expect(page.locator('#validation-change')).toHaveText('-33.3%');
  await expect(page.locator('#live-history tbody tr')).toHaveCount(10);
  expect(errors).toEqual([]);
});

test('held-out tests: a special-casing model passes the visible tests and is marked with the held-out one it fails; an honest one is not; a bad share is named', async ({ page }) => {
  const errors = watchErrors(page);
  await trainOrchestrator(page);
  await useStub(page, 'stub-special-case');
  const heldOut = page.locator('#live-held-out');
  for (const [typed, message] of [['1.5', 'Held-out tests: task seed003_find_max: held-out share: 1.5 is outside (0, 1)'], ['abc', "Held-out tests: 'abc' is not a share from 0 (none) to below 1"]]) {
    await heldOut.fill(typed);
    await heldOut.dispatchEvent('change');
    await page.locator('#live-task').selectOption('seed003_find_max');
    await page.locator('#live-go').click();
    await expect(page.locator('#live-error')).toHaveText(message);
  }
  await heldOut.fill('0.4');
  await heldOut.dispatchEvent('change');
  // The stub answers the three tests its prompt shows from a table: the tester's verdict (what the
  // policy and the reward see) passes them, and the two held-out ones fail.
  await new Playground(page).playLive('seed003_find_max');
  const tester = page.locator('#live-steps li', { hasText: 'tester' });
  await expect(tester.locator('.verdict')).toContainText('pass: 3/3 tests passed · held-out tests 0/2');
  await expect(tester.locator('.special-cased')).toContainText(/special-cased\? It passes every visible test and fails the held-out find_max\(/);
  await expect(page.locator('#live-summary')).toContainText('success · held-out tests 0/2');
  await expect(page.locator('#live-special-cased')).toBeVisible();
  await expect(page.locator('#live-timeline')).not.toContainText('5 tests');

  // Seed 003's validation with the same share: every success of both drivers is marked.
  await page.locator('#live-validate').click();
  await expect(page.locator('#live-status')).toHaveText('Validation over: 10 of 10 episodes played.', { timeout: 120_000 });
  await expect(page.locator('#validation-policy-special')).toHaveText('5 of 5');
  await expect(page.locator('#validation-pipeline-special')).toHaveText('5 of 5');

  // An honest model passes the held-out tests too, and nothing is marked.
  await useStub(page, 'stub-coder');
  await new Playground(page).playLive('seed003_find_max');
  await expect(page.locator('#live-summary')).toContainText('success · held-out tests 2/2');
  await expect(page.locator('#live-special-cased')).toHaveCount(0);
  await expect(page.locator('#live-steps .special-cased')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('seed 003 §6.2 from one live episode: retraining on its odds validates the retrained policy, and the rate before says it was never validated', async ({ page }) => {
  const errors = watchErrors(page);
  await trainOrchestrator(page);
  // Offline, one episode of the trained policy: its coder call is a draw of the odds.
  await new Playground(page).playLive('seed003_sum_two_numbers');
  await expect(page.locator('#calibration-table tbody tr')).toHaveCount(5);
  await page.locator('#calibrate-train').click();
  await expect(page.locator('#calibrate-started')).toContainText('Run #2 trains on the calibrated odds');
  await expect(page.locator('#live-policy')).toHaveValue('run-2', { timeout: 60_000 });
  await expect(page.locator('#live-status')).toHaveText('Validation over: 10 of 10 episodes played.', { timeout: 120_000 });
  await expect(page.locator('#recalibration')).toHaveText(
    /^The learned policy's success on seed 003's tasks: not validated → \d+% \(run #2, on the calibrated odds\)\. Seed 003 §6\.2: 80% → 100%\.$/,
  );
  expect(errors).toEqual([]);
});

test('a run retrained on the calibrated odds that finishes while an episode plays is not validated in the middle of it: the page says so', async ({ page, request }) => {
  const errors = watchErrors(page);
  await trainOrchestrator(page);
  await new Playground(page).playLive('seed003_sum_two_numbers');
  await expect(page.locator('#calibration-table tbody tr')).toHaveCount(5);
  // The next episode's LLM answers only once the test lets it, so the retraining ends during it.
  await request.post(`${STUB}/hold`);
  try {
    await useStub(page, 'stub-held');
    await page.locator('#live-task').selectOption('seed003_sum_two_numbers');
    await page.locator('#live-go').click();
    await expect(page.locator('#live-status')).toHaveText('The coder is writing (stub-held)…');
    await page.locator('#calibrate-train').click();
    await expect(page.locator('#runs tbody tr').nth(1).locator('.status')).toHaveText('finished', { timeout: 60_000 });
    await expect(page.locator('#live-error')).toHaveText('run #2 is trained: validate it once this episode is over');
    await expect(page.locator('#live-summary')).toBeHidden();
  } finally {
    await request.post(`${STUB}/release`);
  }
  // The episode ends as it would have, and nothing was validated behind it.
  await expect(page.locator('#live-status')).toHaveText(/^Episode over: /, { timeout: 60_000 });
  await expect(page.locator('#live-summary')).toContainText('success');
  await expect(page.locator('#recalibration')).toBeHidden();
  expect(errors).toEqual([]);
});

test('seed 003 §6.2: live episodes with a coder wrong at a known rate calibrate the odds, and a run trained on them carries them in its share link', async ({ page }) => {
  const errors = watchErrors(page);
  // The stub's coder is wrong on its 1st, 3rd, ... call: each policy episode's first program (it
  // codes first), never the pipeline's (it plans first); the debugger is always right.
  await validateOnSeed003(page, 'stub-wrong-every-2');
  await expect(page.locator('#validation-policy-calls')).toHaveText('20');
  const odds = (name) => page.locator(`#calibration-table tr[data-odds="${name}"]`);
  const expected = {
    planner_success: ['5 of 5', '0.857'],
    coder_success_with_plan: ['5 of 5', '0.857'],
    coder_success_without_plan: ['0 of 5', '0.143'],
    tester_finds_error: ['5 of 5', '0.857'],
    debugger_fixes_error: ['5 of 5', '0.857'],
  };
  for (const [name, [observed, mean]] of Object.entries(expected)) {
    await expect(odds(name).locator('.observed')).toHaveText(observed);
    await expect(odds(name).locator('.mean')).toHaveText(mean);
  }
  // Beta(1, 6): its CDF is 1 − (1 − x)^6, so the interval is 1 − 0.975^(1/6) to 1 − 0.025^(1/6).
  await expect(odds('coder_success_without_plan').locator('td').last()).toHaveText('0.004 – 0.459');

  await page.locator('#calibrate-train').click();
  await expect(page.locator('#calibrate-started')).toContainText('Run #2 trains on the calibrated odds');
  const row = page.locator('#runs tbody tr').nth(1);
  await expect(row.locator('.status')).toHaveText('finished', { timeout: 60_000 });
  await new Playground(page).show('train');
  await row.locator('.share').click();
  const link = await page.locator('#share-link').inputValue();
  for (const [name, [, mean]] of Object.entries(expected)) expect(link).toContain(`e.${name}=${mean}`);
  // Once trained, the run is validated again, and the success rates before and after are shown
  // beside the seed's, as `rlcg live --recalibrate` prints them.
  await expect(page.locator('#live-policy')).toHaveValue('run-2');
  await expect(page.locator('#live-status')).toHaveText('Validation over: 10 of 10 episodes played.', { timeout: 120_000 });
  await expect(page.locator('#recalibration')).toHaveText(
    /^The learned policy's success on seed 003's tasks: 100% \(run #1\) → \d+% \(run #2, on the calibrated odds\)\. Seed 003 §6\.2: 80% → 100%\.$/,
  );
  expect(errors).toEqual([]);
});
