// The engine's language model on burn's WebGPU backend, in the page's nested WebGPU worker, held to
// llama.cpp's recorded numbers (e2e/engine-parity.mjs). Chromium's SwiftShader runs WebGPU on the
// CPU where the machine has no GPU; where there is no WebGPU at all the test says so and skips.
import { test, expect } from '@playwright/test';
import { Playground, watchErrors } from './helpers.mjs';
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
