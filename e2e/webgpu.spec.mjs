// The DQN on burn's Wgpu backend, in Chromium with WebGPU enabled (SwiftShader, Chromium's CPU
// implementation of the GPU, where the machine has no GPU). The other specs run with the GPU off, so
// they check the page when WebGPU is unavailable (page.spec.mjs).
import { test, expect } from '@playwright/test';
import { Playground, setInput, untilKept, watchErrors } from './helpers.mjs';

test.use({
  launchOptions: {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--enable-unsafe-webgpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  },
});

/** Waits for the worker's WebGPU report; returns the adapter's description, or skips without one. */
async function webgpuAdapter(page) {
  await page.goto('./');
  await expect(page.locator('#start')).toBeEnabled();
  await page.locator('#agent').selectOption('dqn');
  const note = page.locator('#backend-note');
  await expect(note).not.toContainText('Looking for a WebGPU adapter', { timeout: 30_000 });
  const text = await note.textContent();
  test.skip(!text.startsWith('WebGPU adapter'), `no WebGPU in this headless Chromium: ${text}`);
  return text;
}

test('on a software adapter the backend stays the CPU however large the learn step, and the note says why', async ({ page }) => {
  const errors = watchErrors(page);
  // SwiftShader is WebGPU's fallback adapter: it runs the GPU's work on the CPU.
  expect(await webgpuAdapter(page)).toContain('a software one (it runs the GPU\'s work on the CPU');
  await page.locator('#hyperparameters summary').click();
  await page.locator('#agent-preset').selectOption('seed');
  await setInput(page, '#param-batch_size', '512');
  // 371 M multiply-adds a learn step: past the crossover, where a hardware adapter would take it.
  await expect(page.locator('#backend')).toHaveValue('ndarray');
  await expect(page.locator('#backend option[value="wgpu"]')).toBeEnabled();
  expect(errors).toEqual([]);
});

test('a DQN executive run on WebGPU trains in the nested worker, pauses, steps, resumes and finishes', async ({ page }) => {
  // SwiftShader runs every GPU kernel on the CPU: about 10 s an episode on 2 cores, so this run is
  // short; the seed's results on Wgpu are reproduced natively (engine/tests/dqn_reproductions.rs).
  test.setTimeout(400_000);
  const errors = watchErrors(page);
  console.log(await webgpuAdapter(page));
  await expect(page.locator('#backend option[value="wgpu"]')).toBeEnabled();
  await page.locator('#env').selectOption('executive');
  await page.locator('#backend').selectOption('wgpu');
  await page.locator('#episodes').fill('6');
  await page.locator('#seed').fill('1');
  await page.locator('#start').click();
  const row = page.locator('#runs tbody tr').first();
  const started = Date.now();

  // Pausing hands the run back between episodes, its policy read back from the GPU; a single step
  // trains one more episode; resuming goes on.
  await expect.poll(async () => parseInt(await row.locator('.done').textContent()), { timeout: 120_000 }).toBeGreaterThan(1);
  await row.locator('.pause').click();
  await expect(row.locator('.status')).toHaveText('paused', { timeout: 60_000 });
  await expect(page.locator('.trace')).toBeVisible();
  const paused = parseInt(await row.locator('.done').textContent());
  await page.waitForTimeout(500);
  expect(parseInt(await row.locator('.done').textContent())).toBe(paused);
  await row.locator('.step').click();
  await expect(row.locator('.done')).toHaveText(String(paused + 1), { timeout: 60_000 });
  await row.locator('.resume').click();

  await expect(row.locator('.status')).toHaveText('finished', { timeout: 300_000 });
  console.log(`executive DQN on WebGPU (SwiftShader), 6 episodes: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await expect(page.locator('#backend-used')).toHaveText('wgpu');
  console.log(await page.locator('#learn-speed').textContent());
  // The greedy evaluation and the step-through come from the policy's copy on the CPU.
  expect(parseFloat(await page.locator('#greedy-success').textContent())).toBeGreaterThanOrEqual(0);
  await page.locator('.trace-next').click();
  await expect(page.locator('.trace-step .values tr')).toHaveCount(5);

  // After a reload the run's checkpoint goes through the page's worker to a fresh nested worker
  // (from the service worker's cache), loads there, and the policy drives a live episode.
  await untilKept(page, 1, { episodes: 6, finished: true });
  await page.reload();
  await expect(page.locator('#runs tbody tr')).toHaveCount(1);
  await new Playground(page).playLive();
  await expect(page.locator('#live-restored')).toHaveText("Run #1's policy was loaded from its stored checkpoint.");
  await expect(page.locator('#live-steps li').first().locator('strong')).toHaveText('generate');
  expect(errors).toEqual([]);
});
