// The engine's language model on burn's WebGPU backend, in the page's nested WebGPU worker, held to
// llama.cpp's recorded numbers (e2e/engine-parity.mjs), and trained there by StepCoder's PPO.
// Chromium's SwiftShader runs WebGPU on the CPU where the machine has no GPU; where there is no
// WebGPU at all the tests say so and skip.
import { test, expect } from '@playwright/test';
import { Playground, fillTrainingForm, freshPage, watchErrors } from './helpers.mjs';
import { matchesLlamaCpp } from './engine-parity.mjs';

test.use({
  launchOptions: {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--enable-unsafe-webgpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  },
});

test('the engine on WebGPU, in the nested worker, gives llama.cpp\'s logits, argmax and greedy tokens', async ({ page }) => {
  test.setTimeout(300_000);
  const errors = watchErrors(page);
  await new Playground(page).open();
  // One chat a file: SwiftShader writes about a token a second. The fixture (Llama, F32) exactly;
  // the Qwen2 shape in F16 (grouped-query attention, biases, tied output) within the gap that f32
  // activations leave on WebGPU, where llama.cpp rounds them to F16 (docs/guide.md).
  const held = { 'tiny-coder.gguf': 'exactly', 'qwen2-tiny-f16.gguf': 0.0015 };
  const missing = await matchesLlamaCpp(page, 'wgpu', Object.keys(held), 1, held);
  test.skip(missing !== null, `no WebGPU in this headless Chromium: ${missing}`);
  expect(errors).toEqual([]);
});

test('StepCoder\'s PPO trains the small code model on WebGPU, in the nested worker, and its link says so', async ({ page, browser }) => {
  // SwiftShader runs every kernel on the CPU, far slower than burn's CPU backend: one small update.
  test.setTimeout(480_000);
  const errors = watchErrors(page);
  const playground = new Playground(page);
  await playground.open();
  await playground.show('stepcoder');
  const note = page.locator('#model-train-backend-note');
  await expect(note).not.toContainText('Looking for a WebGPU adapter', { timeout: 30_000 });
  const found = await note.textContent();
  test.skip(!found.startsWith('WebGPU adapter'), `no WebGPU in this headless Chromium: ${found}`);
  // On a software adapter the crossover rule keeps the CPU, however large the batch, and says why.
  await expect(note).toContainText('a software one');
  await expect(note).toContainText(/One PPO batch here is \d+ M multiply-adds/);
  await expect(page.locator('#model-train-backend')).toHaveValue('ndarray');
  await page.locator('#model-train-backend').selectOption('wgpu');
  await fillTrainingForm(page, 'vanilla', { updates: '1', 'measure-every': '1', 'training-tasks': '1', 'unseen-tasks': '1' },
    { rollouts: '2', tasks_per_update: '1', measure_samples: '1', max_tokens: '24' });
  // The rule no longer moves a backend a person picked.
  await expect(page.locator('#model-train-backend')).toHaveValue('wgpu');
  const started = Date.now();
  await page.locator('#model-train-start').click();
  await expect(page.locator('#model-train-status')).toHaveText(
    /^done; the trained model is kept as file:\/\/\/rlcg-coder-vanilla-seed1\.gguf$/, { timeout: 420_000 });
  console.log(`one update on WebGPU (SwiftShader), measured before and after: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  await expect(page.locator('#model-train-error')).toBeHidden();
  await expect(page.locator('#model-train-updates-table tbody tr')).toHaveCount(1);
  const link = await page.locator('#model-train-link').inputValue();
  expect(link).toContain('&backend=wgpu&');
  // Opened, the link picks WebGPU again.
  const { fresh: other, freshErrors: otherErrors } = await freshPage(browser);
  await other.goto(link);
  await expect(other.locator('#model-train-backend')).toHaveValue('wgpu');
  await other.context().close();
  expect(otherErrors).toEqual([]);
  expect(errors).toEqual([]);
});
