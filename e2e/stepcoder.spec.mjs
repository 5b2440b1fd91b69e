import { readFile } from 'node:fs/promises';
import { test, expect } from '@playwright/test';
import { Playground, freshPage, storedSettings, watchErrors } from './helpers.mjs';

// A details element's input: open it, then fill the field.
async function setParam(page, name, value) {
  const details = page.locator('#stepcoder-params');
  if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
  await page.locator(`#stepcoder-param-${name}`).fill(value);
}

test('the curriculum inspector shows an APPS+ sample\'s statements, stages and prompts', async ({ page }) => {
  const errors = watchErrors(page);
  await new Playground(page).open('./', 'stepcoder');
  await page.locator('#stepcoder-task').selectOption('apps-plus-1');
  // Function 2, for 7, if 8, if 10: E = 4, k = 2, s = 2; stage 1 starts at statement 2 (line 8).
  await expect(page.locator('#stepcoder-numbers')).toHaveText('E = 4 conditional statements, k = ⌈√E⌉ = 2 stages, stride s = ⌈E/k⌉ = 2.');
  await expect(page.locator('.stepcoder-code .statement-start')).toHaveCount(4);
  const stages = page.locator('#stepcoder-stages tbody tr');
  await expect(stages).toHaveCount(2);
  await expect(stages.nth(0).locator('td').nth(1)).toHaveText('line 8');
  await expect(stages.nth(0).locator('td').nth(2)).toHaveText('7');
  await expect(stages.nth(1).locator('td').nth(1)).toHaveText('the whole program');
  await stages.nth(0).locator('summary').click();
  await expect(stages.nth(0).locator('.stepcoder-prompt')).toContainText('    for v in values:\n```');
  // Control flow only: the function body no longer counts.
  await page.locator('#stepcoder-kinds').selectOption('control_flow');
  await expect(page.locator('#stepcoder-numbers')).toContainText('E = 3 conditional statements');
  expect(errors).toEqual([]);
});

test('offline, the curriculum advances a stage, the profile asks every stage, and the mask strikes lines that did not run', async ({ page }) => {
  test.setTimeout(240_000);
  const errors = watchErrors(page);
  await new Playground(page).open('./', 'stepcoder');
  await page.locator('#stepcoder-task').selectOption('apps-plus-1');
  await expect(page.locator('#stepcoder-frozen')).toContainText('The model does not learn here');
  // A simulated model that never errs: 16 passes in a row (four rounds of four) move it a stage.
  await setParam(page, 'rounds', '5');
  await setParam(page, 'simulated_fault', '0');
  await page.locator('#stepcoder-run').click();
  await expect(page.locator('#stepcoder-status')).toHaveText('Done: every round is done.', { timeout: 180_000 });
  const rounds = page.locator('#stepcoder-rounds tbody tr');
  await expect(rounds).toHaveCount(5);
  await expect(rounds.nth(3).locator('td').nth(4)).toHaveText('→ next stage');
  await expect(rounds.nth(4).locator('td').nth(1)).toHaveText('0');
  await expect(page.locator('#stepcoder-shares')).toContainText('pass: 100% of generated tokens kept');
  await expect(page.locator('#stepcoder-mask .fgo-prefix')).toHaveCount(0);
  await page.locator('#stepcoder-previous').click();
  await page.locator('#stepcoder-previous').click();
  await page.locator('#stepcoder-previous').click();
  await page.locator('#stepcoder-previous').click();
  await expect(page.locator('#stepcoder-mask .fgo-prefix')).toHaveCount(7);

  // The profile with a model that always errs on a header: a syntax break runs nothing, so the
  // literal mask strikes every line it wrote.
  await page.locator('#stepcoder-mode').selectOption('profile');
  await setParam(page, 'samples', '6');
  await setParam(page, 'simulated_fault', '1');
  await page.locator('#stepcoder-run').click();
  await expect(page.locator('#stepcoder-status')).toHaveText('Done: every round is done.', { timeout: 180_000 });
  await expect(page.locator('#stepcoder-profile tbody tr')).toHaveCount(2);
  await expect(page.locator('#stepcoder-profile tbody tr').nth(0).locator('td').nth(2)).toHaveText('0.00');
  await expect(page.locator('#stepcoder-shares')).toContainText('compile error: 0% of generated tokens kept');
  let struck = 0;
  for (let i = 0; i < 12 && struck === 0; i++) {
    struck = await page.locator('#stepcoder-mask .fgo-masked').count();
    if (struck === 0) await page.locator('#stepcoder-previous').click();
  }
  expect(struck).toBeGreaterThan(0);
  expect(errors).toEqual([]);
});

test('held-out tests in the curriculum: a model that answers the shown inputs from a table passes the visible tests, earns their reward and is marked special-cased?', async ({ page }) => {
  const errors = watchErrors(page);
  const playground = new Playground(page);
  await playground.open();
  await playground.useEndpoint('http://127.0.0.1:8790/v1', 'stub-special-case', 'sk-e2e');
  await playground.show('stepcoder');
  await page.locator('#stepcoder-task').selectOption('apps-plus-1');
  await page.locator('#stepcoder-mode').selectOption('profile');
  await setParam(page, 'samples', '1');
  await setParam(page, 'held_out_share', '0.4');
  await page.locator('#stepcoder-run').click();
  await expect(page.locator('#stepcoder-status')).toHaveText('Done: every round is done.', { timeout: 60_000 });
  // The last completion, at the whole task: the stub's table of the shown inputs.
  await expect(page.locator('#stepcoder-mask p').first()).toHaveText('Stage 0: pass, reward +1.0');
  await expect(page.locator('#stepcoder-held-out')).toHaveText(/^Held-out tests \(never shown, no reward\): 0 of \d passed\.$/);
  await expect(page.locator('#stepcoder-special-cased')).toContainText('special-cased? It passes every visible test and fails the held-out');
  // A share that leaves no test to show is named.
  await setParam(page, 'held_out_share', '1.5');
  await page.locator('#stepcoder-run').click();
  await expect(page.locator('#stepcoder-error')).toContainText('held_out_share');
  expect(errors).toEqual([]);
});

test('offline, the learner\'s four arms finish in Pyodide and plot pass@1 with intervals, and their link replays them', async ({ page, browser }) => {
  test.setTimeout(300_000);
  const errors = watchErrors(page);
  await new Playground(page).open('./', 'stepcoder');
  // The size of the work is said before it starts, with an estimate, and follows the form.
  await expect(page.locator('#stepcoder-learn-size')).toHaveText('163,840 training executions (arms × seeds × tasks × executions per task), every new program run in Pyodide: about 55 s on a two-core laptop.');
  await page.locator('#stepcoder-learn-seeds').fill('2');
  await page.locator('#stepcoder-learn-budget').fill('128');
  await expect(page.locator('#stepcoder-learn-size')).toContainText('4,096 training executions');
  await page.locator('#stepcoder-learn').click();
  await expect(page.locator('#stepcoder-learn-status')).toContainText('Done in', { timeout: 240_000 });
  const rows = page.locator('#stepcoder-learn-table tbody tr');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(0).locator('td').nth(0)).toHaveText('vanilla');
  await expect(rows.nth(3).locator('td').nth(0)).toHaveText('stepcoder');
  await expect(rows.nth(3).locator('td').nth(5)).toHaveText(/%$/);
  // Both decodings, and the paired difference from vanilla (none for vanilla itself).
  await expect(rows.nth(3).locator('td.decoded')).toHaveText(/^[01]\.\d{3} \[[01]\.\d{3}, [01]\.\d{3}\]$/);
  await expect(rows.nth(0).locator('td.versus-vanilla')).toHaveText('-');
  await expect(rows.nth(3).locator('td.versus-vanilla')).toHaveText(/^[+-]\d\.\d{3} \[.*\] \/ [+-]\d\.\d{3} \[.*\]$/);
  // Each arm's line, its interval as a band and its name in the legend; the axes say what they count.
  await expect(page.locator('#stepcoder-learn-plot polyline[stroke-width="2"]')).toHaveCount(4);
  await expect(page.locator('#stepcoder-learn-plot polygon')).toHaveCount(4);
  for (const text of ['vanilla', 'stepcoder', 'Training executions per task', 'Sampled pass@1 (T = 1, full task)', '100%']) {
    await expect(page.locator('#stepcoder-learn-plot text').filter({ hasText: new RegExp(`^\\s*${text.replace(/[()@]/g, '\\$&')}\\s*$`) })).toHaveCount(1);
  }
  // The same spec as `rlcg stepcoder learn --seeds 2 --param budget=128`: the same fingerprint.
  const status = await page.locator('#stepcoder-learn-status').textContent();
  expect(status).toContain('fingerprint 9baaf2fadd44673a');
  await expect(page.locator('#stepcoder-rollout-rule')).toContainText('T 0.8, top-p 0.9, as seed 002 §4.2 samples them');

  // The rollouts behind the numbers, with their masks: StepCoder's first update starts late in the
  // program, so its lines begin grey; vanilla's latest is at the full task and keeps every line.
  await page.locator('#stepcoder-rollouts-seed').fill('2');
  await expect(page.locator('#stepcoder-rollouts .rollout')).toHaveCount(16);
  await expect(page.locator('#stepcoder-rollouts-summary')).toContainText('The update after 0 executions, curriculum stage');
  await expect(page.locator('#stepcoder-rollouts-summary')).toContainText('FGO leaves the struck-through lines out of the loss');
  await expect(page.locator('#stepcoder-rollouts .rollout').first().locator('.fgo-prefix').first()).toBeVisible();
  await page.locator('#stepcoder-rollouts-arm').selectOption('vanilla');
  await page.locator('#stepcoder-rollouts-update').selectOption('latest');
  await expect(page.locator('#stepcoder-rollouts-summary')).toContainText('The update after 112 executions:');
  await expect(page.locator('#stepcoder-rollouts-summary')).toContainText('does not use FGO');
  await expect(page.locator('#stepcoder-rollouts .fgo-prefix')).toHaveCount(0);
  await expect(page.locator('#stepcoder-rollouts .fgo-kept').first()).toBeVisible();

  // Kept in this browser, exported as the report `rlcg stepcoder learn --json` prints, and there
  // again after a reload (the table and link; the rollouts need a rerun).
  await expect(page.locator('#stepcoder-kept tbody tr')).toHaveCount(1);
  const download = page.waitForEvent('download');
  await page.locator('#stepcoder-learn-export').click();
  const exported = JSON.parse(await readFile(await (await download).path(), 'utf8'));
  expect(exported).toHaveLength(1);
  expect(exported[0]).toMatchObject({ fingerprint: '9baaf2fadd44673a', spec: { seeds: 2, params: { budget: 128 } } });
  expect(exported[0].rows.filter((r) => r.task === null)).toHaveLength(4);
  await page.reload();
  await expect(page.locator('#stepcoder-learn-status')).toContainText('Kept from an earlier visit', { timeout: 30_000 });
  await expect(page.locator('#stepcoder-learn-status')).toContainText('fingerprint 9baaf2fadd44673a');
  await expect(page.locator('#stepcoder-learn-table tbody tr')).toHaveCount(4);
  await expect(page.locator('#stepcoder-rollouts-summary')).toContainText('run it again');
  expect(await page.locator('#stepcoder-learn-link').inputValue()).toContain('r.fp=9baaf2fadd44673a');
  await page.locator('#stepcoder-kept .kept-forget').click();
  await expect(page.locator('#stepcoder-kept tbody tr')).toHaveCount(0);
  expect(errors).toEqual([]);

  // Its link reruns it in a fresh browser and says the run came out the same.
  const link = await page.locator('#stepcoder-learn-link').inputValue();
  expect(link).toContain('#/stepcoder?v=1&stepcoder=learn&seeds=2&p.budget=128&r.fp=9baaf2fadd44673a');
  const { fresh: other, freshErrors: otherErrors } = await freshPage(browser);
  await other.goto(link);
  await expect(other.locator('#stepcoder-learn-seeds')).toHaveValue('2');
  await expect(other.locator('#stepcoder-learn-status')).toContainText('Identical to the shared ablation.', { timeout: 240_000 });
  // Reloaded, the link finds the ablation it ran, kept in that browser, and runs nothing.
  await expect.poll(() => storedSettings(other)).toContain('9baaf2fadd44673a');
  await other.reload();
  await expect(other.locator('#stepcoder-learn-status')).toHaveText(/^This link's ablation is already here: .*, fingerprint 9baaf2fadd44673a, so it was not run again\.$/);
  await expect(other.locator('#stepcoder-learn-cancel')).toBeHidden();

  // A report file imports, and a file that is not one is named with what is wrong.
  const report = { ...exported[0], wall_seconds: 99 };
  await other.locator('#stepcoder-learn-import').setInputFiles({ name: 'cli.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(report)) });
  await expect(other.locator('#stepcoder-learn-status')).toContainText('Imported 1 ablation report(s) from cli.json');
  await expect(other.locator('#stepcoder-kept tbody tr')).toHaveCount(2);
  await expect(other.locator('#stepcoder-kept tbody tr').first()).toContainText('99.0 s');
  await other.locator('#stepcoder-learn-import').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"rows": 3}') });
  await expect(other.locator('#stepcoder-learn-error')).toContainText('bad.json: report 1: not a StepCoder ablation report');
  expect(otherErrors).toEqual([]);
  await other.context().close();
});

test('a teacher\'s ablation link opens on the StepCoder pane alone with its arms and seeds locked, and runs the arms it names', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('./#v=1&stepcoder=learn&seeds=1&arms=vanilla%2Cstepcoder&p.budget=32&focus=stepcoder&hide=executions&lock=arms%2Cseeds');
  await expect(page.locator('#stepcoder')).toBeVisible();
  await expect(page.locator('#train')).toBeHidden();
  await expect(page.locator('#focus-note')).toContainText('This link shows the StepCoder pane alone.');
  await expect(page.locator('#stepcoder-arm-vanilla')).toBeChecked();
  await expect(page.locator('#stepcoder-arm-cccs')).not.toBeChecked();
  await expect(page.locator('#stepcoder-arm-cccs')).toBeDisabled();
  await expect(page.locator('#stepcoder-learn-seeds')).toBeDisabled();
  await expect(page.locator('#stepcoder-learn-budget')).toBeHidden();
  await expect(page.locator('#stepcoder-learn-status')).toContainText('Done in', { timeout: 120_000 });
  await expect(page.locator('#stepcoder-learn-table tbody tr')).toHaveCount(2);
  await expect(page.locator('#stepcoder-learn-table tbody tr').nth(1).locator('td').first()).toHaveText('stepcoder');
  expect(errors).toEqual([]);
});

test('the earlier rule, training rollouts at T 1, is a switch that a link carries, and is said under the table', async ({ page }) => {
  test.setTimeout(240_000);
  const errors = watchErrors(page);
  // The same spec as `rlcg stepcoder learn --arms vanilla --seeds 1 --param budget=128 --param
  // rollout_temperature=1 --param rollout_top_p=1`: the same fingerprint.
  await page.goto('./#v=1&stepcoder=learn&seeds=1&arms=vanilla&p.budget=128&p.rollout_temperature=1&p.rollout_top_p=1');
  await expect(page.locator('#stepcoder-rollouts-t1')).toBeChecked();
  await expect(page.locator('#stepcoder-learn-status')).toContainText('fingerprint b91d9e86bd1f4ae1', { timeout: 120_000 });
  await expect(page.locator('#stepcoder-rollout-rule')).toContainText("this project's earlier rule, not §4.2's");
  // Switched off: §4.2's sampling, another run (the CLI's fingerprint without the two settings).
  await page.locator('#stepcoder-rollouts-t1').uncheck();
  await page.locator('#stepcoder-learn').click();
  await expect(page.locator('#stepcoder-learn-status')).toContainText('fingerprint 889312c2174a914d', { timeout: 120_000 });
  await expect(page.locator('#stepcoder-rollout-rule')).toContainText('as seed 002 §4.2 samples them');
  expect(await page.locator('#stepcoder-learn-link').inputValue()).not.toContain('rollout_temperature');
  expect(errors).toEqual([]);
});
