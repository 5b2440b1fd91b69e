// The red team for unit tests a model wrote (model-tests.json) in the page, as
// cli/tests/model_tests.rs runs it natively: each set through the page's own Python worker
// (static/python/worker.mjs) as LATS's and Reflexion's own tests run (`data_tests`). Data tests are
// judged on what the program's function returned; anything else is refused without running.
import { test, expect } from '@playwright/test';
import { read, runInFreshWorkers } from './helpers.mjs';

const suite = JSON.parse(await read('e2e/model-tests.json'));

test(`${suite.cases.length} sets of tests a model wrote in the page's Python worker: only data runs`, async ({ page }) => {
  test.setTimeout(600_000);
  await page.goto('./');
  const all = await runInFreshWorkers(page, suite.cases.map(({ tests }) => JSON.stringify({ code: suite.program, tests, coverage: false, analysis: false, data_tests: true })));
  expect(Array.isArray(all), String(all)).toBe(true);
  const verdicts = all.map(({ tests, error }) => ({ kinds: tests.map((t) => (t.passed ? 'passed' : t.kind)), error }));
  suite.cases.forEach((entry, i) => {
    expect(verdicts[i].kinds, `${entry.name}: ${JSON.stringify(verdicts[i])}`).toEqual(entry.expect);
  });
});
