// The engine's language model in the page (issue 69): the transformer on burn (engine/src/lm/), built
// into the training worker's wasm, runs the same GGUF files as the tab's llama.cpp. The first test
// holds the page's numbers to llama.cpp's, recorded once by scripts/tiny-model/reference.py
// (e2e/fixtures/llama-cpp-reference.json), as engine/tests/lm_parity.rs holds the native build's;
// the second is a person choosing the engine to run the model in the tab.
import { test, expect } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Playground, setInput, watchErrors } from './helpers.mjs';

const reference = JSON.parse(await readFile(new URL('./fixtures/llama-cpp-reference.json', import.meta.url), 'utf8'));
const fixture = (name) => new URL(name === 'rlcg-coder.gguf' ? `../models/${name}` : `./fixtures/${name}`, import.meta.url);

/** What each file is held to, as in engine/tests/lm_parity.rs: llama.cpp's numbers exactly, or
 * (Qwen2 in Q8_0 and Q4_K_M) within the gap measured natively. */
const HELD = {
  'tiny-coder.gguf': 'exactly',
  'tiny-coder-q8_0.gguf': 'exactly',
  'qwen2-tiny-f16.gguf': 'exactly',
  'tiny-coder-tuned.gguf': 'exactly',
  'rlcg-coder.gguf': 'exactly',
  'qwen2-tiny-q8_0.gguf': 0.012,
  'qwen2-tiny-q4_k_m.gguf': 0.017,
};

/** Starts the page's own training worker beside the page's, and returns a function that sends it
 * one protocol message (with a file, for `load_model`) and resolves to the answer of the given type. */
async function pageWorker(page) {
  await page.evaluate(async () => {
    const worker = new Worker('./worker_loader.js');
    const waiting = [];
    const pieces = [];
    worker.onmessage = ({ data }) => {
      const { message } = JSON.parse(data);
      if (message.type === 'generated') pieces.push(message.text);
      const index = waiting.findIndex((w) => w.type === message.type);
      if (index >= 0) waiting.splice(index, 1)[0].resolve(message);
    };
    window.engineWorker = {
      pieces,
      answer: (type) => new Promise((resolve) => waiting.push({ type, resolve })),
      send(message, file) {
        const text = JSON.stringify({ version: 9, message });
        worker.postMessage(file ? [text, file] : text);
      },
    };
    await window.engineWorker.answer('ready');
  });
  return (message, answerType, file) => page.evaluate(async ({ message, answerType, file }) => {
    const answer = window.engineWorker.answer(answerType);
    const blob = file && new Blob([Uint8Array.from(atob(file), (c) => c.charCodeAt(0))]);
    window.engineWorker.send(message, blob);
    return answer;
  }, { message, answerType, file });
}

function argmax(values) {
  return values.reduce((best, v, i) => (v > values[best] ? i : best), 0);
}

test('the engine in the page gives llama.cpp\'s logits, argmax and greedy tokens on every recorded file', async ({ page }) => {
  test.setTimeout(180_000);
  const errors = watchErrors(page);
  await new Playground(page).open();
  const ask = await pageWorker(page);
  expect(reference.files.map((f) => f.file).sort()).toEqual(Object.keys(HELD).sort());
  for (const [index, recorded] of reference.files.entries()) {
    const bytes = (await readFile(fixture(recorded.file))).toString('base64');
    const loaded = await ask({ type: 'load_model', model_id: index, name: recorded.file }, 'model_loaded', bytes);
    expect(loaded.result.Ok, `${recorded.file}: ${JSON.stringify(loaded.result)}`).toBeTruthy();
    const held = HELD[recorded.file];
    for (const [chat, case_] of recorded.cases.entries()) {
      const what = `${recorded.file}, chat ${chat}`;
      const answer = await ask({ type: 'next_logits', request_id: chat, model_id: index, messages: case_.messages }, 'logits');
      const { prompt, tokens, logits } = answer.result.Ok;
      expect(prompt, `${what}: the chat template's prompt`).toBe(case_.prompt);
      expect(tokens, `${what}: the prompt's tokens`).toEqual(case_.tokens);
      const scale = Math.max(...case_.logits.map(Math.abs));
      const worst = Math.max(...logits.map((l, i) => Math.abs(l - case_.logits[i])));
      expect(worst / scale, `${what}: the largest difference as a share of the logits' scale`)
        .toBeLessThanOrEqual(held === 'exactly' ? 1e-3 : held);
      if (held !== 'exactly') continue;
      expect(argmax(logits), `${what}: the most likely token`).toBe(argmax(case_.logits));
      const generate = {
        type: 'generate', request_id: 100 + chat, model_id: index, messages: case_.messages,
        sampling: { temperature: 0, top_p: 1 }, max_tokens: case_.greedy.length, seed: 0,
      };
      const reply = (await ask(generate, 'generation_ended')).result.Ok;
      expect(reply.tokens, `${what}: greedy generation`).toEqual(case_.greedy);
      expect(reply.prompt_tokens).toBe(case_.tokens.length);
    }
  }
  // The pieces streamed as the replies were written add up to the replies.
  expect((await page.evaluate(() => window.engineWorker.pieces.length))).toBeGreaterThan(0);
  // A file the engine cannot run gets the reason, and nothing else is lost.
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
