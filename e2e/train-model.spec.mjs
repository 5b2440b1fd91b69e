// StepCoder's PPO on a real language model in the tab (issue 70, item 4): the small code model
// that ships with the page trains in the training worker, Pyodide runs its programs, the curves
// are drawn as it goes, Stop keeps the model as trained so far, a reload does not lose the
// training (it resumes, its recorded programs not run again), Pause holds it, one click puts the
// trained model in the in-tab provider, where llama.cpp writes a live episode's code with it, and
// its link trains the same in a fresh browser; a training on WebGPU where there is none is refused.
import { test, expect } from '@playwright/test';
import { Playground, fillTrainingForm, freshPage, setInput, watchErrors } from './helpers.mjs';

test('a person trains the small code model in the tab, watches it, pauses, stops and resumes it after a reload, shares it, and uses what it learned in a live episode', async ({ page, browser }) => {
  test.setTimeout(540_000);
  const errors = watchErrors(page);
  const playground = new Playground(page);
  await playground.open();
  await playground.train({ env: 'orchestrator', agent: 'q-learning', episodes: 5000, seed: 1 });
  await playground.show('stepcoder');
  await expect(page.locator('#model-train-model')).toHaveValue('./models/rlcg-coder.gguf');
  // A small run: two training tasks and one unseen, four rollouts of one task an update.
  await fillTrainingForm(page, 'vanilla', { updates: '3', 'measure-every': '1', 'training-tasks': '2', 'unseen-tasks': '1' },
    { rollouts: '4', tasks_per_update: '1', measure_samples: '2', max_tokens: '96' });
  // A bad setting is named before anything runs.
  await setInput(page, '#model-train-training-tasks', '40');
  await page.locator('#model-train-start').click();
  await expect(page.locator('#model-train-error')).toHaveText('training tasks: between 1 and 32, got 40');
  await setInput(page, '#model-train-training-tasks', '2');

  await page.locator('#model-train-start').click();
  await expect(page.locator('#model-train-stop')).toBeVisible();
  await expect(page.locator('#model-train-status')).toContainText(/measuring pass@1 after 0 updates|drawing update 1/, { timeout: 60_000 });
  // Each update adds a row, and the plots draw pass@1 and the rollouts' shares.
  await expect(page.locator('#model-train-updates-table tbody tr')).toHaveCount(1, { timeout: 240_000 });
  const shares = page.locator('#model-train-shares');
  await expect(shares).toContainText('pass@1 on the training tasks (T 0.2)');
  await expect(shares).toContainText('rollouts that passed their tests (T 0.8)');
  await expect(page.locator('#model-train-updates-table tbody tr').first()).toContainText('no curriculum in this arm');
  // Paused, it holds before its next step, and goes on when asked.
  await page.locator('#model-train-pause').click();
  await expect(page.locator('#model-train-status')).toHaveText(/^paused, before /, { timeout: 60_000 });
  const held = await page.locator('#model-train-status').textContent();
  await page.waitForTimeout(1500);
  await expect(page.locator('#model-train-status')).toHaveText(held);
  await expect(page.locator('#model-train-updates-table tbody tr')).toHaveCount(1);
  await expect(page.locator('#model-train-pause')).toHaveText('Go on');
  await page.locator('#model-train-pause').click();
  await expect(page.locator('#model-train-status')).not.toHaveText(held, { timeout: 30_000 });
  await expect(page.locator('#model-train-pause')).toHaveText('Pause');
  await page.locator('#model-train-stop').click();
  await expect(page.locator('#model-train-status')).toHaveText(
    /^ended early \(cancelled\); the model as trained so far is kept as file:\/\/\/rlcg-coder-vanilla-seed1\.gguf$/, { timeout: 120_000 });
  await expect(page.locator('#model-train-error')).toBeHidden();
  const firstUpdate = await page.locator('#model-train-updates-table tbody tr').first().textContent();

  // Stopped, or cut by a reload, it resumes: trained again from the start, the recorded programs
  // not run again, to the same first update.
  await expect(page.locator('#model-train-resumable')).toContainText('A training of ./models/rlcg-coder.gguf (vanilla (Vanilla PPO), 3 updates, seed 1) stopped after');
  await page.reload();
  await playground.show('stepcoder');
  await expect(page.locator('#model-train-resumable')).toBeVisible();
  await page.locator('#model-train-resume').click();
  await expect(page.locator('#model-train-status')).toHaveText(
    /^done; the trained model is kept as file:\/\/\/rlcg-coder-vanilla-seed1\.gguf$/, { timeout: 240_000 });
  await expect(page.locator('#model-train-replayed')).toContainText(/^[1-9]\d* batches of programs answered from this browser's record$/);
  const rows = page.locator('#model-train-updates-table tbody tr');
  await expect(rows).toHaveCount(3);
  expect(await rows.first().textContent()).toBe(firstUpdate);
  // The figures `rlcg stepcoder train --first 2,1` prints natively for the same spec
  // (cli/tests/model_ppo.rs): the page trains what the CLI trains.
  const noCurriculum = 'no curriculum in this arm';
  await expect(rows.nth(0).locator('td')).toHaveText(['1', '+0.000', '0.0000', '100%', noCurriculum]);
  await expect(rows.nth(1).locator('td')).toHaveText(['2', '+1.000', '-0.0001', '100%', noCurriculum]);
  await expect(rows.nth(2).locator('td')).toHaveText(['3', '+0.500', '0.0021', '100%', noCurriculum]);
  await expect(page.locator('#model-train-resumable')).toBeHidden();

  // Its link carries the settings and the records' fingerprint, and trains the same in a fresh
  // browser. (Natively `rlcg stepcoder train --json` prints b5ae3e4713d7af52 for this spec: its
  // records agree with the page's to the printed digits, not in every bit of their floats.)
  const link = await page.locator('#model-train-link').inputValue();
  expect(link).toMatch(/#\/stepcoder\?v=1&model-ppo=small&arm=vanilla&updates=3&measure=1&seed=1&tasks=2%2C1&p\.rollouts=4&p\.measure_samples=2&p\.tasks_per_update=1&p\.max_tokens=96&r\.fp=4f6b4e48ad5a113a$/);
  const { fresh: other, freshErrors: otherErrors } = await freshPage(browser);
  await other.goto(link);
  await expect(other.locator('#model-train-status')).toHaveText(/^Opened from a link: Train trains its settings here; when it ends/);
  await expect(other.locator('#model-train-arm')).toHaveValue('vanilla');
  await expect(other.locator('#model-train-training-tasks')).toHaveValue('2');
  await other.locator('#model-train-start').click();
  await expect(other.locator('#model-train-compared')).toHaveText(
    /^The same records as the training of the link this page was opened from \(fingerprint [0-9a-f]{16}\)\.$/, { timeout: 240_000 });
  await other.context().close();
  expect(otherErrors).toEqual([]);

  await page.locator('#model-train-use').click();
  await expect(page.locator('#llm-provider')).toHaveValue('in-tab');
  await playground.show('live');
  await expect(page.locator('#in-tab-kept tr.in-use')).toContainText('file:///rlcg-coder-vanilla-seed1.gguf');
  await playground.playLive();
  // llama.cpp runs the file the engine wrote, unchanged. (The reply is shown only while it is
  // written: the episode's summary keeps where it was written.)
  await expect(page.locator('#live-summary')).toContainText(/, written at [\d.]+ tokens\/s on llama\.cpp on the CPU/, { timeout: 120_000 });
  expect(errors).toEqual([]);
});

test('a training\'s link fills the form, names a bad field, and names a model this browser does not keep', async ({ page }) => {
  const errors = watchErrors(page);
  await new Playground(page).open('./#/stepcoder?v=1&model-ppo=absent.gguf&arm=fgo&updates=2&measure=1&seed=3&tasks=3%2C2&p.rollouts=x');
  await expect(page.locator('#error')).toContainText('This model training link was not entirely valid, so defaults stand in for: settings: rollouts:');
  await expect(page.locator('#model-train-arm')).toHaveValue('fgo');
  await expect(page.locator('#model-train-seed')).toHaveValue('3');
  await expect(page.locator('#model-train-unseen-tasks')).toHaveValue('2');
  await expect(page.locator('#model-train-status')).toHaveText('Opened from a link: Train trains its settings here.');
  await expect(page.locator('#model-train-error')).toHaveText(
    'The link trains the model absent.gguf, which this browser does not keep: keep it in the in-tab provider (Live pane), then reload this link.');
  await expect(page.locator('#model-train-model')).toHaveValue('./models/rlcg-coder.gguf');
  expect(errors).toEqual([]);
});

test('a training on WebGPU, where this browser has none, is refused with the reason', async ({ page }) => {
  const errors = watchErrors(page);
  await new Playground(page).open('./#/stepcoder?v=1&model-ppo=small&arm=vanilla&updates=1&measure=1&seed=1&tasks=1%2C1&backend=wgpu');
  await expect(page.locator('#model-train-backend-note')).toContainText('WebGPU is unavailable here (', { timeout: 30_000 });
  // The link's backend stands (a person may still pick the CPU).
  await expect(page.locator('#model-train-backend')).toHaveValue('wgpu');
  await page.locator('#model-train-start').click();
  await expect(page.locator('#model-train-error')).toContainText(
    /^\.\/models\/rlcg-coder\.gguf: this browser offers no WebGPU \(.+\); train it on the CPU$/, { timeout: 60_000 });
  await expect(page.locator('#model-train-start')).toBeEnabled();
  expect(errors).toEqual([]);
});
