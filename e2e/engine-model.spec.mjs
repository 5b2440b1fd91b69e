// The engine's language model in the page (issue 69): the transformer on burn (engine/src/lm/), built
// into the training worker's wasm, runs the same GGUF files as the tab's llama.cpp. The first test
// holds the page's numbers to llama.cpp's, recorded once by scripts/tiny-model/reference.py
// (e2e/fixtures/llama-cpp-reference.json), as engine/tests/lm_parity.rs holds the native build's;
// the second is a person choosing the engine to run the model in the tab.
import { test, expect } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Playground, setInput, watchErrors } from './helpers.mjs';
import { HELD, fixture, matchesLlamaCpp, pageWorker, reference } from './engine-parity.mjs';

test('the engine in the page gives llama.cpp\'s logits, argmax and greedy tokens on every recorded file', async ({ page }) => {
  test.setTimeout(180_000);
  const errors = watchErrors(page);
  await new Playground(page).open();
  expect(reference.files.map((f) => f.file).sort()).toEqual(Object.keys(HELD).sort());
  expect(await matchesLlamaCpp(page, 'ndarray', Object.keys(HELD))).toBeNull();
  // A file the engine cannot run gets the reason.
  const ask = await pageWorker(page);
  const text = Buffer.from('not a model').toString('base64');
  const refused = await ask({ type: 'load_model', model_id: 99, name: 'notes.gguf' }, 'model_loaded', text);
  expect(refused.result.Err).toMatch(/^notes\.gguf: .*GGUF/);
  expect(errors).toEqual([]);
});

test('a person chooses the engine to run the model in the tab: it writes a live episode\'s code, as llama.cpp does, and says so', async ({ page }) => {
  test.setTimeout(180_000);
  const errors = watchErrors(page);
  const playground = new Playground(page);
  await playground.open();
  await playground.train({ env: 'orchestrator', agent: 'q-learning', episodes: 5000, seed: 1 });
  await playground.show('live');
  await page.locator('#llm-provider').selectOption('in-tab');
  await page.locator('#in-tab-file').setInputFiles(fileURLToPath(fixture('tiny-coder.gguf')));
  await expect(page.locator('#in-tab-message')).toHaveText(/^Kept tiny-coder\.gguf in this browser/);
  // Greedy, so that both runtimes must write the same tokens.
  await setInput(page, '#llm-temperature', '0');

  await playground.playLive();
  await expect(page.locator('#live-summary')).toContainText(/^success/);
  const byLlamaCpp = (await page.locator('#live-stream').textContent()).replace(/\n\n\[.*\]$/, '');

  await page.locator('#in-tab-runtime').selectOption('engine');
  await expect(page.locator('#in-tab-where')).toContainText('The engine runs the model');
  await playground.playLive();
  await expect(page.locator('#live-summary')).toContainText(/^success/);
  await expect(page.locator('#live-steps li').nth(1).locator('.verdict')).toContainText('pass: 5/5 tests passed');
  // Under the reply: its length, speed and what wrote it; the same reply as llama.cpp's.
  await expect(page.locator('#live-stream')).toContainText(
    /\[\d+ tokens at \d+ tokens\/s, by the engine \(burn\) in the training worker, on the CPU\]$/);
  const byEngine = (await page.locator('#live-stream').textContent()).replace(/\n\n\[.*\]$/, '');
  expect(byEngine).toContain('```python\ndef find_max');
  expect(byEngine).toBe(byLlamaCpp);
  await expect(page.locator('#live-summary')).toContainText('on the engine (burn) in the training worker, on the CPU');

  // A file the engine cannot run says why, in the episode.
  const broken = Buffer.from(await readFile(fixture('tiny-coder.gguf')));
  const key = Buffer.from('general.architecture');
  const value = broken.indexOf(key) + key.length + 4 + 8;
  broken.write('zzzzz', value);
  await page.locator('#in-tab-file').setInputFiles({ name: 'zzzzz.gguf', mimeType: 'application/octet-stream', buffer: broken });
  await expect(page.locator('#in-tab-message')).toHaveText(/^Kept zzzzz\.gguf in this browser/);
  await playground.playLive();
  await expect(page.locator('#live-timeline')).toContainText(
    "the engine could not load the model in this tab: file:///zzzzz.gguf: architecture 'zzzzz' is not supported (llama and qwen2 are)");
  expect(errors).toEqual([]);
});
