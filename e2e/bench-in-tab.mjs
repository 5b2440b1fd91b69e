// Benchmark of the in-tab LLM (wllama, llama.cpp in wasm) in Debian's headless Chromium: load time
// and generation speed of GGUF models, as the page runs them (cross-origin isolated, so wllama's
// threads are on). It asserts nothing about speed; docs/benchmarks.md quotes its figures.
//   node e2e/bench-in-tab.mjs [--model=FILE]... [--runs=N]
// Default model: the e2e fixture (e2e/fixtures/tiny-coder.gguf). For a realistic shape, make one
// with `scripts/tiny-model/make.py --shape 0.5b --out /tmp/random-0.5b.gguf` (random weights).
// Each model: the load (from a Blob, as from the browser's cache) then N replies of up to 64
// tokens to one recorded prompt, timed by llama.cpp; with WebGPU when the browser has an adapter.
import { chromium } from 'playwright-core';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import os from 'node:os';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const models = process.argv.filter((a) => a.startsWith('--model=')).map((a) => path.resolve(a.slice(8)));
if (models.length === 0) models.push(path.join(root, 'e2e/fixtures/tiny-coder.gguf'));
const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 3);
const library = path.join(root, 'node_modules/@wllama/wllama/esm');
const prompt = JSON.parse((await readFile(path.join(root, 'scripts/tiny-model/prompts.jsonl'), 'utf8')).split('\n')[0]).messages;

const page = `<!doctype html><script type="module">
import { Wllama } from './index.js';
window.measure = async (file, runs, messages, cpu) => {
  // One fetch a model: the second load reads the same Blob, as the page reads the kept file.
  window.blobs ??= {};
  const blob = window.blobs[file] ??= await (await fetch(file)).blob();
  const wllama = new Wllama({ default: './wllama.wasm' }, { logger: { debug() {}, log() {}, warn() {}, error: console.error } });
  wllama.setCompat(null);
  const began = performance.now();
  await wllama.loadModel([blob], cpu ? { n_ctx: 2048, n_gpu_layers: 0 } : { n_ctx: 2048 });
  const load = performance.now() - began;
  const speeds = [], prompts = [];
  for (let i = 0; i < runs; i++) {
    // llama.cpp's own timings; ignore_eos: a model with random weights writes all 64 tokens too.
    let timings = null;
    const stream = await wllama.createChatCompletion({ messages, temperature: 0, max_tokens: 64, ignore_eos: true, stream: true });
    for await (const chunk of stream) timings = chunk.timings ?? timings;
    speeds.push(timings.predicted_per_second);
    prompts.push(timings.prompt_per_second);
  }
  const threads = wllama.getNumThreads();
  const webgpu = wllama.isSupportWebGPU();
  await wllama.exit();
  return { load, speeds, prompts, threads, webgpu };
};
window.ready = true;
</script>`;

const server = createServer(async (req, res) => {
  const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
  const url = req.url.split('?')[0];
  const file = url === '/' ? null : url.startsWith('/model/') ? models[Number(url.slice(7))] : path.join(library, url === '/wllama.wasm' ? 'wasm/wllama.wasm' : url);
  try {
    const body = file ? await readFile(file) : page;
    const type = url === '/' ? 'text/html' : url.endsWith('.js') ? 'text/javascript' : url.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream';
    res.writeHead(200, { ...headers, 'Content-Type': type });
    res.end(body);
  } catch {
    res.writeHead(404, headers);
    res.end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--enable-unsafe-webgpu'],
});
const tab = await browser.newPage();
await tab.goto(`http://127.0.0.1:${server.address().port}/`);
await tab.waitForFunction(() => window.ready);
console.log(`${os.cpus()[0].model}, ${os.cpus().length} cores; Chromium ${browser.version()}; ${new Date().toISOString().slice(0, 10)}`);
for (const [i, model] of models.entries()) {
  // As the page loads it (every layer on WebGPU where the browser offers it), then on the CPU alone.
  for (const cpu of [false, true]) {
    const { load, speeds, prompts, threads, webgpu } = await tab.evaluate(
      ([file, runs, messages, cpu]) => window.measure(file, runs, messages, cpu), [`/model/${i}`, runs, prompt, cpu]);
    if (cpu && !webgpu) break;
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(1);
    console.log(`${path.basename(model)} (${((await stat(model)).size / 1e6).toFixed(1)} MB), ` +
      `${cpu ? 'CPU (wasm)' : webgpu ? 'WebGPU (navigator.gpu present)' : 'CPU (wasm; no navigator.gpu)'}: load ${(load / 1000).toFixed(2)} s, ` +
      `writes ${median(speeds)} tokens/s, reads the prompt at ${median(prompts)} tokens/s (medians of ${runs}), ${threads} threads`);
  }
}
await browser.close();
server.close();
