// Benchmark of the in-tab LLM (wllama, llama.cpp in wasm) in Debian's headless Chromium: load time
// and generation speed of GGUF models, as the page runs them (cross-origin isolated, so wllama's
// threads are on). It asserts nothing about speed; docs/benchmarks.md quotes its figures.
//   node e2e/bench-in-tab.mjs [--model=FILE]... [--runs=N]
// Default model: the e2e fixture (e2e/fixtures/tiny-coder.gguf). For a realistic shape, make one
// with `scripts/tiny-model/make.py --shape 0.5b --out /tmp/random-0.5b.gguf` (random weights).
// Each model: the load (from a Blob, as from the browser's cache) then N replies of up to 64
// tokens to one recorded prompt, timed by llama.cpp; with WebGPU when the browser has an adapter.
// `--app=DIR` instead drives the built page in DIR (scripts/test's build/test-page) with the
// fixture: the main thread's long tasks (over 50 ms) in live episodes with the simulated LLM (the
// page and Python alone), while the model downloads, while it loads and writes a live episode's
// code, and while it writes again; `--trace` also prints what each of those tasks ran.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
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
const app = process.argv.find((a) => a.startsWith('--app='))?.slice(6);
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
  const headers = {
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
    // The app, on another port, downloads the model from here.
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': 'Content-Length',
    'Cross-Origin-Resource-Policy': 'cross-origin',
  };
  const url = req.url.split('?')[0];
  const file = url === '/' ? null : url.startsWith('/model/') ? models[parseInt(url.slice(7), 10)] : path.join(library, url === '/wllama.wasm' ? 'wasm/wllama.wasm' : url);
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
console.log(`${os.cpus()[0].model}, ${os.cpus().length} cores; Chromium ${browser.version()}; ${new Date().toISOString().slice(0, 10)}`);
if (app) {
  await longTasks(path.resolve(app), `http://127.0.0.1:${server.address().port}/model/0/tiny-coder.gguf`);
  await browser.close();
  server.close();
  process.exit(0);
}
const tab = await browser.newPage();
await tab.goto(`http://127.0.0.1:${server.address().port}/`);
await tab.waitForFunction(() => window.ready);
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

/** The app in `directory` with the model at `model`: the long tasks of each phase, as the page's
 * main thread reports them (PerformanceObserver, entries over 50 ms). */
async function longTasks(directory, model) {
  const port = 8797;
  const serving = spawn('python3', [path.join(root, 'scripts', 'serve-dist.py'), '--port', String(port), '--directory', directory], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 800));
  const page = await browser.newPage();
  await page.addInitScript(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => [e.startTime, e.duration])))
      .observe({ type: 'longtask', buffered: true });
  });
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.locator('#start:enabled').waitFor();
  await page.locator('#env').selectOption('orchestrator');
  await page.locator('#agent').selectOption('q-learning');
  await page.locator('#episodes').fill('5000');
  await page.locator('#start').click();
  await page.locator('#runs tbody tr .status', { hasText: 'finished' }).waitFor({ timeout: 60_000 });
  await page.locator('#panes a[data-route="live"]').click();
  await page.waitForTimeout(3000);
  const phase = async (name, act) => {
    const began = await page.evaluate(() => performance.now());
    if (process.argv.includes('--trace')) await browser.startTracing(page, { categories: ['devtools.timeline', 'v8'] });
    await act();
    if (process.argv.includes('--trace')) whatRan(JSON.parse(await browser.stopTracing()));
    const tasks = await page.evaluate((t) => window.longTasks.filter(([start]) => start >= t), began);
    const seconds = ((await page.evaluate(() => performance.now())) - began) / 1000;
    const longest = Math.max(0, ...tasks.map(([, d]) => d));
    console.log(`${name}: ${seconds.toFixed(1)} s, ${tasks.length} long tasks, the longest ${longest.toFixed(0)} ms` +
      (tasks.length ? ` (${tasks.map(([, d]) => d.toFixed(0)).join(', ')} ms)` : ''));
  };
  const episode = async () => {
    await page.locator('#live-go').click();
    await page.locator('#live-status', { hasText: 'Episode over' }).waitFor({ timeout: 60_000 });
  };
  // The same episode with the simulated LLM: what the page and Python cost without a model.
  await phase('a live episode with the simulated LLM (Python tests its programs)', episode);
  await phase('another one', episode);
  await page.locator('#llm-provider').selectOption('in-tab');
  await page.locator('#in-tab-preset').selectOption('other');
  await page.locator('#in-tab-url').fill(model);
  await page.locator('#in-tab-url').dispatchEvent('change');
  await page.locator('#in-tab-download').click();
  await page.locator('#in-tab-message', { hasText: 'Press Download again' }).waitFor();
  await phase('download and keep the fixture (2.8 MB)', async () => {
    await page.locator('#in-tab-download').click();
    await page.locator('#in-tab-message', { hasText: 'Kept in this browser' }).waitFor({ timeout: 60_000 });
  });
  await phase('a live episode: the library and the model load, it writes, Python tests', episode);
  await phase('a second live episode (model loaded)', episode);
  await page.close();
  serving.kill();
}

/** `--trace`: the main thread's tasks over 50 ms in a trace, each with the events that took most of it. */
function whatRan(trace) {
  const events = trace.traceEvents;
  const main = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  if (!main) return console.log('  (no renderer main thread in the trace)');
  const mine = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur);
  const tasks = mine.filter((e) => e.dur > 50_000 && !mine.some((o) => o !== e && o.ts <= e.ts && o.ts + o.dur >= e.ts + e.dur && o.dur > e.dur));
  for (const task of tasks) {
    const inside = mine.filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur <= task.ts + task.dur && e.dur > 5_000);
    const named = inside.map((e) => `${e.name}${e.args?.data?.functionName ? ` ${e.args.data.functionName}` : ''}${e.args?.data?.url ? ` ${e.args.data.url.split('/').pop()}` : ''} ${(e.dur / 1000).toFixed(0)} ms`);
    console.log(`  ${task.name} ${(task.dur / 1000).toFixed(0)} ms: ${named.slice(0, 10).join('; ')}`);
  }
}
