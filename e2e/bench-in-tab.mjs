// Benchmark of the in-tab LLM (wllama, llama.cpp in wasm) in Debian's headless Chromium, beside
// llama.cpp itself on the same files and prompt (issue 71). It asserts nothing about speed;
// docs/benchmarks.md quotes its table.
//   node e2e/bench-in-tab.mjs [--model=FILE]... [--runs=N] [--prompt-chars=N] [--native=PYTHON] [--engine=RLCG] [--page=DIR] [--no-wllama] [--webgpu]
// Default model: the e2e fixture (e2e/fixtures/tiny-coder.gguf). Qwen2.5-0.5B's shape with random
// weights, in Q8_0 and Q4_K_M: `PYTHON scripts/tiny-model/speed.py --make /tmp` writes
// /tmp/qwen2-0.5b-{q8_0,q4_k_m}.gguf. Each model is loaded (from a Blob, as from the browser's
// cache) on one thread (wllama's choice on two cores before) and on every core the browser gives
// (the page's), on the CPU (`--webgpu`: also as wllama loads it by default, every layer on WebGPU
// where the browser offers it); then N replies of 64 tokens (`ignore_eos`, greedy) to a prompt of
// about 500 tokens (the recorded prompts, joined), the prompt cache off so that each reads the whole
// prompt, timed by llama.cpp; then one reply with the prompt cached, as a search's next call finds
// the task it resends. `--native=PYTHON` runs scripts/tiny-model/speed.py with that Python
// (llama-cpp-python) on the same files and messages, on every core, and puts it in the table;
// `--engine=RLCG` also the engine's own language model (burn, `RLCG lm generate --json`, one thread)
// on them, natively, and `--page=DIR` the same engine in the training worker of the page built in DIR
// (scripts/test's build/test-page), as "Runs on: the engine" runs it (issue 69).
// `--profile` instead takes a CPU profile of llama.cpp's workers (wllama's and its threads') while
// each model, loaded on every core, reads the prompt and writes one reply, and prints the time by
// kind of code (ggml's dot products, its other operations, waiting between threads).
// `--app=DIR` instead drives the built page in DIR (scripts/test's build/test-page) with the
// fixture: the main thread's long tasks (over 50 ms) in live episodes with the simulated LLM (the
// page and Python alone), while the model downloads, while it loads and writes a live episode's
// code, and while it writes again; `--trace` also prints what each of those tasks ran.
import { chromium } from 'playwright-core';
import { devTools } from './devtools.mjs';
import { spawn, execFileSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import os from 'node:os';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const models = process.argv.filter((a) => a.startsWith('--model=')).map((a) => path.resolve(a.slice(8)));
if (models.length === 0) models.push(path.join(root, 'e2e/fixtures/tiny-coder.gguf'));
const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 3);
const native = process.argv.find((a) => a.startsWith('--native='))?.slice(9);
const engine = process.argv.find((a) => a.startsWith('--engine='))?.slice(9);
const built = process.argv.find((a) => a.startsWith('--page='))?.slice(7);
const library = path.join(root, 'node_modules/@wllama/wllama/esm');
const app = process.argv.find((a) => a.startsWith('--app='))?.slice(6);
// About 500 of the fixture's tokens (and of the 0.5B files', which share its tokenizer); `--prompt-chars=N` for a model of a
// shorter context (the small code model's is 512 tokens).
const PROMPT_CHARS = Number(process.argv.find((a) => a.startsWith('--prompt-chars='))?.slice(15) ?? 1360);
// The first recorded prompt, its user turn followed by the others' and cut at PROMPT_CHARS.
const recorded = (await readFile(path.join(root, 'scripts/tiny-model/prompts.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l).messages);
const prompt = structuredClone(recorded[0]);
const user = prompt.findLast((m) => m.role === 'user');
for (const other of recorded.slice(1)) {
  if (user.content.length > PROMPT_CHARS) break;
  user.content += `\n\n${other.findLast((m) => m.role === 'user').content}`;
}
user.content = user.content.slice(0, PROMPT_CHARS);

const page = `<!doctype html><script type="module">
import { Wllama } from './index.js';
window.measure = async (file, runs, messages, threads, gpu) => {
  // One fetch a model: the second load reads the same Blob, as the page reads the kept file.
  window.blobs ??= {};
  const blob = window.blobs[file] ??= await (await fetch(file)).blob();
  const wllama = new Wllama({ default: './wllama.wasm' }, { logger: { debug() {}, log() {}, warn() {}, error: console.error } });
  wllama.setCompat(null);
  const began = performance.now();
  await wllama.loadModel([blob], { n_ctx: 4096, n_threads: threads, ...(gpu ? {} : { n_gpu_layers: 0 }) });
  const load = performance.now() - began;
  // llama.cpp's own timings; ignore_eos: a model with random weights writes all 64 tokens too.
  const reply = async (cache_prompt) => {
    let timings = null, first = null;
    const start = performance.now();
    const stream = await wllama.createChatCompletion({ messages, temperature: 0, max_tokens: 64, ignore_eos: true, stream: true, cache_prompt });
    for await (const chunk of stream) {
      if (first === null && chunk.choices?.[0]?.delta?.content) first = performance.now() - start;
      timings = chunk.timings ?? timings;
    }
    return { timings, first };
  };
  const cold = [];
  for (let i = 0; i < runs; i++) cold.push(await reply(false));
  await reply(true);
  const cached = await reply(true);
  const result = {
    load, threads: wllama.getNumThreads(), webgpu: wllama.isSupportWebGPU(), promptTokens: cold[0].timings.prompt_n,
    prompts: cold.map((r) => r.timings.prompt_per_second), writes: cold.map((r) => r.timings.predicted_per_second),
    firsts: cold.map((r) => r.first), cachedFirst: cached.first, cachedTokens: cached.timings.cache_n,
  };
  await wllama.exit();
  return result;
};
// For --profile: a model loaded apart from the reply that is profiled.
window.load = async (file, threads) => {
  const blob = await (await fetch(file)).blob();
  window.loaded = new Wllama({ default: './wllama.wasm' }, { logger: { debug() {}, log() {}, warn() {}, error: console.error } });
  window.loaded.setCompat(null);
  await window.loaded.loadModel([blob], { n_ctx: 4096, n_threads: threads, n_gpu_layers: 0 });
};
window.replyOnce = async (messages) => {
  let timings = null;
  const stream = await window.loaded.createChatCompletion({ messages, temperature: 0, max_tokens: 64, ignore_eos: true, stream: true, cache_prompt: false });
  for await (const chunk of stream) timings = chunk.timings ?? timings;
  return timings;
};
window.unload = () => window.loaded.exit();
// For --page: the engine's language model in the page's own training worker, one reply of 64
// tokens (ignore_eos, greedy), timed by the worker's clock.
window.engine = async (file, messages) => {
  const worker = new Worker('/page/worker_loader.js');
  // Requests carry the protocol version the worker's own messages carry (its first is "ready").
  let version;
  const answer = (type) => new Promise((resolve) => {
    worker.addEventListener('message', function heard({ data }) {
      const envelope = JSON.parse(data);
      const { message } = envelope;
      version ??= envelope.version;
      if (message.type === type) { worker.removeEventListener('message', heard); resolve(message); }
    });
  });
  const send = (message, file) => worker.postMessage(file ? [JSON.stringify({ version, message }), file] : JSON.stringify({ version, message }));
  await answer('ready');
  const blob = await (await fetch(file)).blob();
  const began = performance.now();
  const loadAnswer = answer('model_loaded');
  send({ type: 'load_model', model_id: 1, name: file }, blob);
  const loaded = await loadAnswer;
  const load = performance.now() - began;
  if (loaded.result.Err) { worker.terminate(); throw new Error(loaded.result.Err); }
  const ended = answer('generation_ended');
  send({ type: 'generate', request_id: 1, model_id: 1, messages, sampling: { temperature: 0, top_p: 1 }, max_tokens: 64, seed: 0, ignore_eos: true });
  const reply = (await ended).result.Ok;
  worker.terminate();
  return { load, ...reply };
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
  const file = url === '/' ? null
    : url.startsWith('/model/') ? models[parseInt(url.slice(7), 10)]
    : url.startsWith('/page/') && built ? path.join(path.resolve(built), path.normalize(url.slice(6)))
    : path.join(library, url === '/wllama.wasm' ? 'wasm/wllama.wasm' : url);
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
const debuggingPort = 9334;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--enable-unsafe-webgpu', `--remote-debugging-port=${debuggingPort}`],
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
const cores = await tab.evaluate(() => navigator.hardwareConcurrency);
if (process.argv.includes('--profile')) {
  for (const [i, model] of models.entries()) await profile(model, `/model/${i}`);
  await browser.close();
  server.close();
  process.exit(0);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Each row is printed as it is measured (a long run keeps what it measured if a later row fails).
console.log(`\n| model | runtime | threads | load (s) | reads the prompt (tokens/s) | writes (tokens/s) | first token (s) | first token, prompt cached (s) |`);
console.log('|---|---|---|---|---|---|---|---|');
const row = (model, runtime, r) => console.log(`| ${path.basename(model)} | ${runtime} | ${r.threads} | ${r.load.toFixed(2)} | ` +
  `${r.prompt.toFixed(1)} (${r.promptTokens} tokens) | ${r.written.toFixed(1)} | ${r.first.toFixed(2)} | ${r.cachedFirst?.toFixed(2) ?? '—'} |`);
for (const [i, model] of models.entries()) {
  console.log(`| ${path.basename(model)} (${((await stat(model)).size / 1e6).toFixed(1)} MB) | | | | | | | |`);
  const messages = path.join(os.tmpdir(), 'bench-in-tab-messages.json');
  await writeFile(messages, JSON.stringify(prompt));
  if (native) {
    const out = execFileSync(native, [path.join(root, 'scripts/tiny-model/speed.py'), '--messages', messages,
      '--threads', String(cores), '--runs', String(runs), model], { encoding: 'utf8', cwd: path.join(root, 'scripts/tiny-model') });
    const r = JSON.parse(out.trim().split('\n').pop());
    row(model, `llama.cpp native (llama-cpp-python ${r.llama_cpp_python})`, {
      threads: r.threads, load: r.load_s, prompt: r.prompt_per_second, promptTokens: r.prompt_tokens,
      written: r.written_per_second, first: r.first_token_s, cachedFirst: r.cached_first_token_s,
    });
  }
  if (engine) {
    // One reply: the engine is deterministic at temperature 0 and slow on the 0.5B shape.
    try {
      const r = JSON.parse(execFileSync(engine, ['lm', 'generate', '--model', model, '--messages', messages, '--max-tokens', '64',
        '--ignore-eos', '--json'], { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'pipe'] }).trim().split('\n').pop());
      row(model, 'the engine (burn, ndarray), natively, one reply', {
        threads: 1, load: r.load_seconds, prompt: r.prompt_tokens_per_second, promptTokens: r.prompt_tokens,
        written: r.tokens_per_second, first: r.prompt_tokens / r.prompt_tokens_per_second, cachedFirst: null,
      });
    } catch (error) {
      console.log(`| ${path.basename(model)} | the engine (burn, ndarray): ${String(error.stderr ?? error).trim().replaceAll('|', '/')} | | | | | | |`);
    }
  }
  if (built) {
    try {
      const r = await tab.evaluate(([file, messages]) => window.engine(file, messages), [`/model/${i}`, prompt]);
      // The first token's time is the prompt's reading and one draw; the rest are written after it.
      row(model, 'the engine (burn, ndarray) in the page\'s training worker, one reply', {
        threads: 1, load: r.load / 1000, prompt: r.prompt_tokens * 1000 / r.prompt_ms, promptTokens: r.prompt_tokens,
        written: (r.tokens.length - 1) * 1000 / r.writing_ms, first: r.prompt_ms / 1000, cachedFirst: null,
      });
    } catch (error) {
      console.log(`| ${path.basename(model)} | the engine in the page: ${String(error.message ?? error).replaceAll('|', '/')} | | | | | | |`);
    }
  }
  // `--no-wllama`: the other rows alone (the engine in the page on a large model, say).
  const ways = process.argv.includes('--no-wllama') ? []
    : [[1, false], [cores, false], ...(process.argv.includes('--webgpu') ? [[cores, true]] : [])];
  for (const [threads, gpu] of ways) {
    const r = await tab.evaluate(([file, runs, messages, threads, gpu]) => window.measure(file, runs, messages, threads, gpu),
      [`/model/${i}`, runs, prompt, threads, gpu]);
    row(model, `wasm in Chromium${gpu ? (r.webgpu ? ', WebGPU offered' : ', no navigator.gpu') : ''}`, {
      threads: r.threads, load: r.load / 1000, prompt: median(r.prompts), promptTokens: r.promptTokens,
      written: median(r.writes), first: median(r.firsts) / 1000, cachedFirst: r.cachedFirst / 1000,
    });
  }
}
console.log(`(medians of ${runs} replies; the prompt cache off but for the last column)`);
await browser.close();
server.close();

/**
 * `--profile`: `model` loaded on every core, then a CPU profile of every worker (wllama's and its
 * threads'; the DevTools protocol spoken to the browser directly, since Playwright's sessions reach
 * pages only) while it reads the prompt and writes 64 tokens; self time by kind of code, summed
 * over the threads, and llama.cpp's own timings.
 */
async function profile(model, file) {
  await tab.evaluate(([file, threads]) => window.load(file, threads), [file, cores]);
  const { send, close } = await devTools(debuggingPort);
  const { targetInfos } = await send('Target.getTargets');
  const sessions = [];
  for (const worker of targetInfos.filter((t) => t.type === 'worker')) {
    const { sessionId } = await send('Target.attachToTarget', { targetId: worker.targetId, flatten: true });
    await send('Profiler.enable', {}, sessionId);
    await send('Profiler.setSamplingInterval', { interval: 500 }, sessionId);
    await send('Profiler.start', {}, sessionId);
    sessions.push(sessionId);
  }
  const timings = await tab.evaluate((messages) => window.replyOnce(messages), prompt);
  const kinds = [
    ['idle', /^\(idle\)$/],
    ["ggml's dot products (the matrix products' inner loops)", /ggml_vec_dot|ggml_gemv|ggml_gemm|sgemm/],
    ['quantising activations for the products', /quantize_row|quantize_q/],
    ["ggml's other operations (softmax, norms, rope, adds, copies)", /ggml_compute_forward|ggml_vec_|ggml_fp16|ggml_fp32|ggml_cpy/],
    // The thread pool's own loop is where a thread spins at a barrier until the others are done.
    ['threads waiting for each other (the thread pool\'s loop and barriers)', /ggml_graph_compute_thread|barrier|futex|atomic|emscripten_thread|sched_yield|_emscripten_yield|pthread/],
    ['V8 itself: (program), garbage collection', /^\((program|garbage collector)\)$/],
    ['the rest of llama.cpp (graph building, sampling, tokens)', /llama|ggml|gguf|common_|server/],
  ];
  const self = {};
  for (const sessionId of sessions) {
    const { profile } = (await send('Profiler.stop', {}, sessionId)) ?? {};
    if (!profile) continue; // a worker that ended meanwhile
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const msPerSample = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
    for (const id of profile.samples) {
      const name = byId.get(id).callFrame.functionName;
      const kind = kinds.find(([, pattern]) => pattern.test(name))?.[0] ?? 'other (JavaScript, the runtime)';
      self[kind] = (self[kind] ?? 0) + msPerSample;
      if (process.argv.includes('--functions')) self[`  ${name}`] = (self[`  ${name}`] ?? 0) + msPerSample;
    }
  }
  close();
  await tab.evaluate(() => window.unload());
  console.log(`\n${path.basename(model)}, ${cores} threads, ${sessions.length} workers profiled: the prompt (${timings.prompt_n} tokens) ` +
    `read at ${timings.prompt_per_second.toFixed(1)} tokens/s in ${(timings.prompt_ms / 1000).toFixed(1)} s, 64 tokens written at ` +
    `${timings.predicted_per_second.toFixed(1)} tokens/s in ${(timings.predicted_ms / 1000).toFixed(1)} s`);
  const busy = Object.entries(self).filter(([kind]) => kind !== 'idle' && !kind.startsWith('  ')).reduce((sum, [, ms]) => sum + ms, 0);
  for (const [kind, ms] of Object.entries(self).sort((a, b) => b[1] - a[1]).slice(0, 40)) {
    const share = kind === 'idle' || kind.startsWith('  ') ? '' : ` (${((100 * ms) / busy).toFixed(0)}% of the busy time)`;
    console.log(`${(ms / 1000).toFixed(2).padStart(8)} s  ${kind}${share}`);
  }
}

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
