// The red team for unit tests a model wrote (model-tests.json) in the page, as
// cli/tests/model_tests.rs runs it natively: each set through the page's own Python worker
// (static/python/worker.mjs) as LATS's and Reflexion's own tests run (`data_tests`). Data tests are
// judged on what the program's function returned; anything else is refused without running.
import { test, expect } from '@playwright/test';
import { read } from './helpers.mjs';

const suite = JSON.parse(await read('e2e/model-tests.json'));

test(`${suite.cases.length} sets of tests a model wrote in the page's Python worker: only data runs`, async ({ page }) => {
  test.setTimeout(600_000);
  await page.goto('./');
  const verdicts = await page.evaluate(async (requests) => {
    let warmStart;
    const run = (request) =>
      new Promise((resolve) => {
        const worker = new Worker('./python/worker.mjs', { type: 'module' });
        worker.onmessage = ({ data }) => {
          if (data.type === 'warm_start') warmStart = data;
          if (data.type === 'ready') worker.postMessage({ type: 'run', id: 1, request });
          if (data.type === 'verdict' || data.type === 'failed') {
            worker.terminate();
            resolve(data.type === 'verdict' ? JSON.parse(data.verdict) : { tests: [], error: data.message });
          }
        };
        worker.postMessage({ type: 'start', warm_start: warmStart });
      });
    const verdicts = [await run(requests[0])];
    for (let i = 1; i < requests.length; i += 2) verdicts.push(...(await Promise.all(requests.slice(i, i + 2).map(run))));
    return verdicts.map(({ tests, error }) => ({ kinds: tests.map((t) => (t.passed ? 'passed' : t.kind)), error }));
  }, suite.cases.map(({ tests }) => JSON.stringify({ code: suite.program, tests, coverage: false, analysis: false, data_tests: true })));
  suite.cases.forEach((entry, i) => {
    expect(verdicts[i].kinds, `${entry.name}: ${JSON.stringify(verdicts[i])}`).toEqual(entry.expect);
  });
});
