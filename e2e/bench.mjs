// Browser benchmark: drives the built page (dist/) in Debian's Chromium and prints figures; it asserts
// nothing about speed. Run with `scripts/bench-browser` after a release build.
//   - the 5000-episode orchestrator Q-learning run inside the worker (training time the worker
//     measures, and wall time from Train to the results on screen);
//   - DQN learn steps per second on NdArray (playground executive run, 500 episodes) and, when the
//     worker finds a WebGPU adapter, on WebGPU (the same run, 20 episodes: a software adapter such
//     as SwiftShader manages about one learn step every two seconds);
//   - the page's frame rate while a DQN run trains;
//   - the gzip size of the app and worker wasm;
//   - Python: Pyodide's load time cold (fresh profile) and warm (HTTP cache), the latency of a
//     small test suite, and the time inside the harness for the bundled sample tasks and for the
//     ten search tasks' reference programs with ten tests each (bench/search_tasks_as_apps.py),
//     against native python3 running the same harness (`rlcg check`);
//   - StepCoder's ablation in the page (four arms × 10 seeds × four tasks, 1024 executions each;
//     `--stepcoder-only` runs just this one, `--stepcoder-budget=N` sets the executions), wall time
//     from the button to the table.
// `--dist=DIR` measures the build in DIR instead of dist/. `--before=DIR` measures two builds side
// by side in one run, DIR ("before") and the other ("after"), taking turns (`--rounds=N`, 3), with
// native figures beside them (`rlcg` in release, python3; run it with scripts/lib.sh's
// CARGO_TARGET_DIR, as scripts/bench-browser does): docs/benchmarks.md's "before and after".
// `--page=DIR` measures the shipped build (dist/) and the test build in DIR (scripts/test's
// build/test-page: the same but for the WebGPU worker's wasm-opt) side by side the same way, native
// figures beside them.
// `--interpreters` measures only the Python workers' hand-over, on one build or, with `--before`, two:
// the first program from a page that has not loaded Python, when the next interpreter was ready after
// its verdict and after a second program's, and the main thread's long tasks meanwhile.
// `--back-to-back` measures only Python programs run back to back as issue 74 did, on one build or,
// with `--before`, two, taking turns (`--rounds=N`, 3), each round in a fresh browser context: the
// Python pane's program, then one 3 s later, then ten each clicked as soon as the previous verdict
// shows, each from the click to its verdict in the DOM.
// `--dqn` measures only the executive DQN (500 episodes, learn steps per second), on one build or,
// with `--before`, two, taking turns (`--rounds=N`, 5), each round in a fresh browser context.
// `--native` measures the one build against the native figures the same way. `--profile-dqn` takes a
// CPU profile of the training worker during the 500-episode executive DQN run, saves it and prints
// where the time goes (by function name only in a build with the names: `strip = "none"` in
// Cargo.toml's `page` profile). `--profile-python` takes a CPU profile of each Python worker the
// page makes after its first program, from the worker's first instruction until it has loaded (its
// interpreters restored from the first worker's snapshots), and prints where a worker's load goes.
// `--model-ppo-backends` times StepCoder's PPO on the small code model in "Train the model" on the
// CPU and on WebGPU (where the worker finds an adapter), side by side.
import { chromium } from 'playwright-core';
import { devTools } from './devtools.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const option = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const dist = path.resolve(root, option('dist') ?? 'dist');
const before = option('before') && path.resolve(root, option('before'));
/** `--page=DIR`: the page as scripts/serve and scripts/test build it (without the WebGPU worker's wasm-opt), beside the shipped build in dist/. */
const pageBuild = option('page') && path.resolve(root, option('page'));
const port = 8799;
/** The bundled sample tasks (16 reference solutions). */
const SAMPLES = ['humaneval.jsonl', 'apps.json'].map((file) => path.join(root, 'tasks', 'samples', file));
/** The release CLI on `args`, synchronously (native figures); built on first use, then run without cargo. */
let rlcgBinary;
function rlcg(args) {
  if (!rlcgBinary) {
    spawnSync('cargo', ['build', '--release', '-q', '-p', 'cli'], { cwd: root, stdio: 'inherit' });
    rlcgBinary = path.join(process.env.CARGO_TARGET_DIR ?? path.join(root, 'target'), 'release', 'rlcg');
  }
  return spawnSync(rlcgBinary, args, { cwd: root, encoding: 'utf8' });
}
const servers = [dist, before ?? pageBuild].filter(Boolean).map((directory, i) =>
  spawn('python3', [path.join(root, 'scripts', 'serve-dist.py'), '--port', String(port + i), '--directory', directory], { stdio: 'ignore' }));
await new Promise((resolve) => setTimeout(resolve, 800));

const debuggingPort = 9333;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--enable-unsafe-webgpu', `--remote-debugging-port=${debuggingPort}`],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
const figures = {};
try {
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForFunction(() => document.querySelector('#start')?.disabled === false);

  if (process.argv.includes('--dqn')) {
    await benchDqn(figures, before ? { before: `http://127.0.0.1:${port + 1}/`, after: `http://127.0.0.1:${port}/` } : { page: `http://127.0.0.1:${port}/` });
  } else if (process.argv.includes('--back-to-back')) {
    await benchBackToBack(figures, before ? { before: `http://127.0.0.1:${port + 1}/`, after: `http://127.0.0.1:${port}/` } : { page: `http://127.0.0.1:${port}/` });
  } else if (process.argv.includes('--interpreters')) {
    await benchInterpreters(figures, before ? { before: `http://127.0.0.1:${port + 1}/`, after: `http://127.0.0.1:${port}/` } : { page: `http://127.0.0.1:${port}/` });
  } else if (before) await benchSideBySide(figures, { before: `http://127.0.0.1:${port + 1}/`, after: `http://127.0.0.1:${port}/` });
  else if (pageBuild) await benchSideBySide(figures, { shipped: `http://127.0.0.1:${port}/`, page: `http://127.0.0.1:${port + 1}/` });
  else if (process.argv.includes('--native')) await benchSideBySide(figures, { page: `http://127.0.0.1:${port}/` });
  else if (process.argv.includes('--profile-dqn')) await profileDqn(figures);
  else if (process.argv.includes('--profile-python')) await profilePython(figures);
  else if (process.argv.includes('--python-only')) await benchPython(figures);
  else if (process.argv.includes('--stepcoder-only')) await benchStepcoder(figures);
  else if (process.argv.includes('--model-ppo-backends')) await benchModelPpoBackends(figures);
  else await benchAll(figures);
} finally {
  await browser.close();
  servers.forEach((server) => server.kill());
}
for (const [name, value] of Object.entries(figures)) {
  const shown = (v) => (typeof v === 'number' ? String(+v.toFixed(2)) : String(v));
  const text = typeof value === 'object' ? Object.entries(value).map(([k, v]) => `${k} ${shown(v)}`).join('  ') : shown(value);
  console.log(`${name.padEnd(48)} ${text}`);
}

/** Trains `agent` on `env` in `page` from the run form; wall time from Train to the finished row, training time, learn steps per second (a DQN's). */
async function train(page, env, agent, episodes, seed, backend = 'ndarray') {
  await page.selectOption('#env', env);
  await page.selectOption('#agent', agent);
  if (agent === 'dqn') await page.selectOption('#backend', backend);
  await page.fill('#episodes', String(episodes));
  await page.fill('#seed', String(seed));
  const rows = await page.locator('#runs tbody tr').count();
  const started = Date.now();
  await page.click('#start');
  const row = page.locator('#runs tbody tr').nth(rows);
  await row.locator('.status', { hasText: 'finished' }).waitFor({ timeout: 300_000 });
  const wallMs = Date.now() - started;
  await row.locator('.select').click();
  const caption = await page.locator('#summary caption').textContent();
  const speed = agent === 'dqn' ? (await page.locator('#learn-speed').textContent()).match(/([\d.]+) per second/) : null;
  return { wallMs, trainMs: parseFloat(caption.match(/in (\d+) ms/)[1]), learnSpeed: speed && parseFloat(speed[1]) };
}

async function benchAll(figures) {
  const orchestrator = [];
  for (let i = 0; i < 5; i++) orchestrator.push(await train(page, 'orchestrator', 'q-learning', 5000, i + 1));
  const best = (xs) => Math.min(...xs);
  figures.orchestrator_5000_train_ms_best_of_5 = best(orchestrator.map((r) => r.trainMs));
  figures.orchestrator_5000_wall_ms_best_of_5 = best(orchestrator.map((r) => r.wallMs));

  const dqn = await train(page, 'executive', 'dqn', 500, 1);
  figures.dqn_executive_500_wall_s = dqn.wallMs / 1000;
  figures.dqn_learn_steps_per_s_ndarray = dqn.learnSpeed;
  await page.locator('#backend-note:not(:has-text("Looking for"))').waitFor({ timeout: 30_000 });
  figures.webgpu = (await page.locator('#backend-note').textContent()).split('.')[0];
  if (figures.webgpu.startsWith('WebGPU adapter')) {
    const gpu = await train(page, 'executive', 'dqn', 20, 1, 'wgpu');
    figures.dqn_executive_20_wall_s_webgpu = gpu.wallMs / 1000;
    figures.dqn_learn_steps_per_s_webgpu = gpu.learnSpeed;
  }
  await page.selectOption('#backend', 'ndarray');

  // Frame rate while a long DQN run trains in the worker and the page redraws its plots.
  await page.selectOption('#env', 'executive');
  await page.selectOption('#agent', 'dqn');
  await page.fill('#episodes', '100000');
  await page.click('#start');
  await page.waitForTimeout(1000);
  figures.ui_fps_while_training = await page.evaluate(() => new Promise((resolve) => {
    let frames = 0;
    const start = performance.now();
    const tick = (now) => { frames++; if (now - start < 3000) requestAnimationFrame(tick); else resolve(frames / ((now - start) / 1000)); };
    requestAnimationFrame(tick);
  }));
  await page.locator('#runs tbody tr').last().locator('.stop').click();

  await benchPython(figures);

  const wasm = (await readdir(dist)).filter((f) => f.endsWith('.wasm'));
  let gzipBytes = 0;
  for (const file of wasm) {
    const bytes = await readFile(path.join(dist, file));
    const gz = gzipSync(bytes, { level: 9 }).length;
    figures[`gzip_kib_${file.replace(/-[0-9a-f]{16}/, '')}`] = Math.round(gz / 1024);
    gzipBytes += gz;
  }
  figures.gzip_mib_app_plus_worker = +(gzipBytes / 1024 / 1024).toFixed(2);
}

/**
 * The training worker's CPU profile during the 500-episode executive DQN run: the worker is not a
 * page, so this speaks the DevTools protocol to the browser directly (Playwright's sessions reach
 * pages only) and attaches to the worker's target. Prints the parts of the run (inclusive) and the
 * self time by kind of code.
 */
async function profileDqn(figures) {
  const { send, close } = await devTools(debuggingPort);
  const { targetInfos } = await send('Target.getTargets');
  const worker = targetInfos.find((t) => t.type === 'worker' && t.url.endsWith('/worker_loader.js'));
  const { sessionId } = await send('Target.attachToTarget', { targetId: worker.targetId, flatten: true });
  await send('Profiler.enable', {}, sessionId);
  await send('Profiler.setSamplingInterval', { interval: 200 }, sessionId);
  await send('Profiler.start', {}, sessionId);
  figures.dqn_executive_500_wall_s = (await train(page, 'executive', 'dqn', 500, 1)).wallMs / 1000;
  const { profile } = await send('Profiler.stop', {}, sessionId);
  close();
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'rlcg-profile-')), 'dqn-worker.cpuprofile');
  await writeFile(file, JSON.stringify(profile));
  figures.profile = file;

  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map(profile.nodes.flatMap((n) => (n.children ?? []).map((c) => [c, n.id])));
  const msPerSample = (profile.endTime - profile.startTime) / 1000 / profile.samples.length;
  const name = (id) => byId.get(id).callFrame.functionName.replace(/::h[0-9a-f]{16}$/, '');
  const parts = {
    'observe (acting and learning)': /engine::agents::dqn::Dqn as engine::agents::Agent>::observe$/,
    'forward passes': /DuelingQNet::forward$/,
    'backward pass': /AutodiffBackend>::backward$/,
    "Adam's step": /ModuleOptimizerMapper as .*>::map_float$/,
    'greedy evaluation': /Run::evaluate_greedy$/,
  };
  const kinds = [
    ['idle', /^\(idle\)$/], ['allocation and copies', /dlmalloc|__rdl_|__rust_(alloc|dealloc|realloc)|^mem(cpy|move|set|cmp)/],
    ['matrixmultiply', /matrixmultiply/], ['SIMD element-wise (macerator)', /macerator|::simd::/], ['ndarray', /ndarray::/],
    ['burn-autodiff', /burn_autodiff/], ['burn-optim', /burn_optim/], ['burn dispatch', /burn_/], ['engine', /engine::/],
  ];
  const inclusive = {};
  const self = {};
  for (const id of profile.samples) {
    const own = name(id);
    const kind = kinds.find(([, pattern]) => pattern.test(own))?.[0] ?? 'other';
    self[kind] = (self[kind] ?? 0) + msPerSample;
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      for (const [part, pattern] of Object.entries(parts)) {
        if (!seen.has(part) && pattern.test(name(at))) {
          seen.add(part);
          inclusive[part] = (inclusive[part] ?? 0) + msPerSample;
        }
      }
    }
  }
  for (const [part, ms] of Object.entries(inclusive)) figures[`ms_in_${part}`] = ms;
  for (const [kind, ms] of Object.entries(self).sort((a, b) => b[1] - a[1])) figures[`ms_self_${kind}`] = ms;
}

/**
 * CPU profiles of the Python workers that the page makes after its first program: the DevTools
 * protocol auto-attaches to each new worker, paused at its start, and profiles it from there for
 * 2.5 s (a restored worker loads in about 0.5 s; it then waits as the next program's). `--rounds=N`
 * (4) programs, each one given time for its successor to load. Prints each worker's busy time and,
 * over all of them, the self time by kind of code and the costliest functions.
 */
async function profilePython(figures) {
  await showPane(page, 'python');
  await runLatencies(page, 1); // Pyodide compiled, the first worker's snapshots taken
  await page.waitForTimeout(4000); // the next workers loaded, unprofiled
  const attached = [];
  const { send, close } = await devTools(debuggingPort, ({ method, params }) => {
    if (method !== 'Target.attachedToTarget') return;
    const { sessionId, targetInfo, waitingForDebugger } = params;
    const run = () => send('Runtime.runIfWaitingForDebugger', {}, sessionId);
    if (targetInfo.type !== 'worker' || !targetInfo.url.includes('/python/worker.mjs')) return waitingForDebugger && run();
    attached.push(sessionId);
    (async () => {
      await send('Profiler.enable', {}, sessionId);
      await send('Profiler.setSamplingInterval', { interval: 200 }, sessionId);
      await send('Profiler.start', {}, sessionId);
      await run();
    })();
  });
  const { targetInfos } = await send('Target.getTargets');
  const target = targetInfos.find((t) => t.type === 'page' && t.url.startsWith(`http://127.0.0.1:${port}/`));
  const { sessionId: pageSession } = await send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
  await send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, pageSession);
  const profiles = [];
  for (let round = 0; round < Number(option('rounds') ?? 4); round++) {
    const before = attached.length;
    await runLatencies(page, 1);
    await page.waitForTimeout(2500);
    for (const sessionId of attached.slice(before)) {
      const { profile } = (await send('Profiler.stop', {}, sessionId)) ?? {};
      if (profile) profiles.push(profile);
    }
  }
  close();
  const folder = await mkdtemp(path.join(tmpdir(), 'rlcg-profile-'));
  for (const [i, profile] of profiles.entries()) await writeFile(path.join(folder, `python-worker-${i + 1}.cpuprofile`), JSON.stringify(profile));
  figures.profiles = folder;
  const kinds = [
    ['idle', (f) => f.functionName === '(idle)'], ['garbage collector', (f) => f.functionName === '(garbage collector)'],
    ['V8 itself: parsing, compiling, runtime', (f) => f.functionName === '(program)'],
    ['CPython and Pyodide in wasm', (f) => f.url.startsWith('wasm://') || /^\$?func\d+|^\$/.test(f.functionName)],
    ["Pyodide's JavaScript (pyodide.asm.mjs)", (f) => f.url.endsWith('pyodide.asm.mjs')], ['pyodide.mjs', (f) => f.url.endsWith('/pyodide.mjs')],
    ['the worker and the harness pair (worker.mjs, pair.mjs)', (f) => /python\/(worker|pair)\.mjs$/.test(f.url)],
  ];
  const self = {};
  const functions = {};
  profiles.forEach((profile, i) => {
    const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    const msPerSample = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
    let busy = 0;
    let lastBusy = 0;
    profile.samples.forEach((id, at) => {
      const frame = byId.get(id);
      const kind = kinds.find(([, test]) => test(frame))?.[0] ?? 'other';
      self[kind] = (self[kind] ?? 0) + msPerSample / profiles.length;
      if (kind === 'idle') return;
      busy += msPerSample;
      lastBusy = at * msPerSample;
      const key = `${frame.functionName || '(anonymous)'} ${path.basename(frame.url)}:${frame.lineNumber}`;
      functions[key] = (functions[key] ?? 0) + msPerSample / profiles.length;
    });
    figures[`worker_${i + 1}_busy_ms`] = busy;
    figures[`worker_${i + 1}_last_busy_at_ms`] = lastBusy;
  });
  for (const [kind, ms] of Object.entries(self).sort((a, b) => b[1] - a[1])) figures[`mean_ms_self_${kind}`] = ms;
  for (const [name, ms] of Object.entries(functions).sort((a, b) => b[1] - a[1]).slice(0, 15)) figures[`mean_ms_in ${name}`] = ms;
}

/** The median of `xs` (the upper one of an even count). */
function median(xs) {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

/** The ten search tasks as an APPS-style file with ten tests each (bench/search_tasks_as_apps.py); its path. */
async function searchTasksFile() {
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'rlcg-bench-')), 'search-apps.json');
  spawnSync('python3', [path.join(root, 'bench', 'search_tasks_as_apps.py'), file], { stdio: 'inherit' });
  return file;
}

/** The Python pane's program run `count` times back to back: each time from the click to the verdict in the DOM, timed inside the page. */
async function runLatencies(page, count) {
  const latencies = [];
  for (let run = 0; run < count; run++) {
    latencies.push(await page.evaluate(() => new Promise((resolve) => {
      const previous = document.querySelector('#outcome');
      const started = performance.now();
      const observer = new MutationObserver(() => {
        const outcome = document.querySelector('#outcome');
        if (outcome && outcome !== previous) { observer.disconnect(); resolve(performance.now() - started); }
      });
      observer.observe(document.body, { childList: true, subtree: true });
      document.querySelector('#editor-run').click();
    })));
  }
  return latencies;
}

/** Shows `pane` by the nav's link; a build from before routes shows every pane, and has none. */
async function showPane(page, pane) {
  const link = page.locator(`#panes a[data-route="${pane}"]`);
  if (await link.count()) await link.click();
}

/** The time inside the harness for `files`' reference solutions in the page's Pyodide, best of 5. */
async function insidePyodide(page, files) {
  // The import is in the Search pane since issue 73 (the Python pane's before it).
  const holder = await page.locator('#import').evaluate((e) => e.closest('[data-pane]')?.dataset.pane);
  if (holder) await showPane(page, holder);
  await page.click('#import summary');
  for (const file of files) {
    await page.locator('#import-tasks').setInputFiles(file);
    await page.locator('#import-message', { hasText: 'Imported' }).waitFor();
  }
  const inside = [];
  for (let round = 0; round < 5; round++) {
    await page.click('#check-tasks');
    const summary = await page.locator('#check-summary', { hasText: 'reference solutions pass' }).textContent();
    inside.push(parseFloat(summary.match(/([\d.]+) ms inside Python/)[1]));
  }
  return Math.min(...inside);
}

/** The same in native python3 (`rlcg check`, one job), best of 5. */
function insideNative(files) {
  const native = [];
  for (let round = 0; round < 5; round++) {
    let seconds = 0;
    for (const file of files) {
      const out = rlcg(['check', '--jobs', '1', '--json', '--tasks', file]);
      seconds += JSON.parse(out.stdout.trim().split('\n').pop()).python_seconds;
    }
    native.push(seconds * 1000);
  }
  return Math.min(...native);
}

async function benchPython(figures) {
  const searchTasks = await searchTasksFile();
  const loads = [];
  const context = await browser.newContext();
  for (let i = 0; i < 4; i++) {
    const python = await context.newPage();
    await python.goto(`http://127.0.0.1:${port}/`);
    await showPane(python, 'python');
    await python.click('#editor-run');
    await python.locator('#outcome').waitFor({ timeout: 60_000 });
    const state = await python.locator('#python-state', { hasText: 'loaded in' }).textContent({ timeout: 60_000 });
    loads.push(parseFloat(state.match(/loaded in ([\d.]+) s/)[1]));
    if (i < 3) await python.close();
    else {
      // Timed inside the page, from the click to the verdict in the DOM.
      figures.python_run_5_tests_latency_ms_median_of_20 = median(await runLatencies(python, 20));

      figures.pyodide_samples_16_inside_python_ms_best_of_5 = await insidePyodide(python, SAMPLES);
    }
  }
  await context.close();
  const searchContext = await browser.newContext();
  const searchPage = await searchContext.newPage();
  await searchPage.goto(`http://127.0.0.1:${port}/`);
  figures.pyodide_search_10x10_inside_python_ms_best_of_5 = await insidePyodide(searchPage, [searchTasks]);
  await searchContext.close();
  figures.pyodide_load_cold_s = loads[0];
  figures.pyodide_load_warm_s_best_of_3 = Math.min(...loads.slice(1));

  figures.native_python3_samples_16_inside_python_ms_best_of_5 = insideNative(SAMPLES);
  figures.pyodide_over_native_python3 = figures.pyodide_samples_16_inside_python_ms_best_of_5 / figures.native_python3_samples_16_inside_python_ms_best_of_5;
  figures.native_python3_search_10x10_inside_python_ms_best_of_5 = insideNative([searchTasks]);
  figures.pyodide_over_native_python3_search_10x10 = figures.pyodide_search_10x10_inside_python_ms_best_of_5 / figures.native_python3_search_10x10_inside_python_ms_best_of_5;
  await benchWorldModel(figures);
}

/** `visit(page, build)` for each build, `rounds` times taking turns, each time in a fresh browser context at the build's address. */
async function inFreshContexts(builds, rounds, visit) {
  for (let round = 0; round < rounds; round++) {
    for (const [build, url] of Object.entries(builds)) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(url);
      await visit(page, build);
      await context.close();
    }
  }
}

/**
 * StepCoder's PPO on the small code model, once on each backend, each in a fresh browser context:
 * one update of one task's 2 rollouts (up to 24 tokens), pass@1 from one program a task before and
 * after (as e2e/engine-model-webgpu.spec.mjs trains it); wall time from Train to "done", and the
 * update's row.
 */
async function benchModelPpoBackends(figures) {
  for (const backend of ['ndarray', 'wgpu']) {
    await inFreshContexts({ [backend]: `http://127.0.0.1:${port}/#/stepcoder` }, 1, async (page) => {
      await page.waitForFunction(() => !document.querySelector('#model-train-backend-note')?.textContent.startsWith('Looking'), null, { timeout: 30_000 });
      const note = await page.locator('#model-train-backend-note').textContent();
      if (backend === 'wgpu' && !note.startsWith('WebGPU adapter')) {
        figures.model_ppo_wgpu = `no WebGPU: ${note}`;
        return;
      }
      await page.selectOption('#model-train-backend', backend);
      await page.selectOption('#model-train-arm', 'vanilla');
      for (const [field, value] of [['updates', '1'], ['measure-every', '1'], ['training-tasks', '1'], ['unseen-tasks', '1']]) {
        await page.fill(`#model-train-${field}`, value);
      }
      await page.click('#model-train-params summary');
      for (const [param, value] of [['rollouts', '2'], ['tasks_per_update', '1'], ['measure_samples', '1'], ['max_tokens', '24']]) {
        await page.fill(`#model-train-param-${param}`, value);
      }
      const started = Date.now();
      await page.click('#model-train-start');
      await page.locator('#model-train-status', { hasText: /^done;/ }).waitFor({ timeout: 900_000 });
      figures[`model_ppo_${backend}_s`] = (Date.now() - started) / 1000;
      figures[`model_ppo_${backend}_update`] = (await page.locator('#model-train-updates-table tbody tr').first().textContent()).trim();
      console.log(`${backend}: ${note}`);
    });
  }
}

/**
 * The next interpreter (issue 54): in a fresh page, the first program (Python not loaded yet), then a
 * second one two seconds after its verdict, `--rounds=N` (5) times per build, builds taking turns.
 * Figures: the first program's latency from the click, when the next interpreter was ready after
 * each verdict (the state line's `ready N ms after the last verdict`), and the main thread's
 * longest task and total long-task time over both programs (PerformanceObserver).
 */
async function benchInterpreters(figures, builds) {
  const taken = {};
  await inFreshContexts(builds, Number(option('rounds') ?? 5), async (page, build) => {
    const keep = (name, value) => {
      ((taken[name] ??= {})[build] ??= []).push(value);
      console.log(`${build} ${name} ${value}`);
    };
    await page.waitForFunction(() => document.querySelector('#editor-run')?.disabled === false);
    await page.evaluate(() => {
      window.longTasks = [];
      new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((entry) => entry.duration))).observe({ type: 'longtask' });
    });
    keep('first_program_from_click_ms', (await runLatencies(page, 1))[0]);
    for (const which of ['first', 'second']) {
      if (which === 'second') {
        await page.waitForTimeout(2000);
        await runLatencies(page, 1);
      }
      const state = await page.locator('#python-state', { hasText: 'after the last verdict' }).textContent({ timeout: 60_000 });
      keep(`ready_after_${which}_verdict_ms`, parseFloat(state.match(/ready (\d+) ms after/)[1]));
    }
    await page.waitForTimeout(2000);
    const longTasks = await page.evaluate(() => window.longTasks);
    keep('longest_main_thread_task_ms', Math.max(0, ...longTasks));
    keep('long_tasks_total_ms', longTasks.reduce((sum, ms) => sum + ms, 0));
  });
  for (const [name, byBuild] of Object.entries(taken)) {
    figures[`${name}_median`] = Object.fromEntries(Object.entries(byBuild).map(([build, values]) => [build, median(values)]));
    figures[`${name}_max`] = Object.fromEntries(Object.entries(byBuild).map(([build, values]) => [build, Math.max(...values)]));
  }
}

async function benchBackToBack(figures, builds) {
  const taken = {};
  await inFreshContexts(builds, Number(option('rounds') ?? 3), async (page, build) => {
    await showPane(page, 'python');
    await page.waitForFunction(() => document.querySelector('#editor-run')?.disabled === false);
    const first = await runLatencies(page, 1);
    await page.waitForTimeout(3000);
    const second = await runLatencies(page, 1);
    await page.waitForTimeout(3000);
    const latencies = await runLatencies(page, 10);
    console.log(`${build}: first ${first.map(Math.round)}, 3 s later ${second.map(Math.round)}, back to back ${latencies.map(Math.round).join(' ')}`);
    ((taken[build] ??= []).push(...latencies.slice(2)));
  });
  for (const [build, values] of Object.entries(taken)) {
    figures[`back_to_back_3rd_to_10th_ms_median_${build}`] = median(values);
    figures[`back_to_back_3rd_to_10th_ms_max_${build}`] = Math.max(...values);
  }
}

async function benchDqn(figures, builds) {
  const taken = {};
  await inFreshContexts(builds, Number(option('rounds') ?? 5), async (page, build) => {
    await page.waitForFunction(() => document.querySelector('#start')?.disabled === false);
    const dqn = await train(page, 'executive', 'dqn', 500, 1);
    for (const [name, value] of [['dqn_executive_500_wall_s', dqn.wallMs / 1000], ['dqn_learn_steps_per_s', dqn.learnSpeed]]) {
      ((taken[name] ??= {})[build] ??= []).push(value);
      console.log(`${build} ${name} ${value}`);
    }
  });
  for (const [name, byBuild] of Object.entries(taken)) {
    figures[`${name}_median`] = Object.fromEntries(Object.entries(byBuild).map(([build, values]) => [build, median(values)]));
    figures[`${name}_range`] = Object.fromEntries(Object.entries(byBuild).map(([build, values]) => [build, `${Math.min(...values)}–${Math.max(...values)}`]));
  }
}

/** StepCoder's learner with the page's defaults: wall time and the programs Pyodide ran. */
async function benchStepcoder(figures) {
  await showPane(page, 'stepcoder');
  const budget = option('stepcoder-budget');
  if (budget) await page.locator('#stepcoder-learn-budget').fill(budget);
  const ablation = await runAblation(page);
  figures.stepcoder_ablation_4_arms_10_seeds_s = ablation.seconds;
  figures.stepcoder_ablation_distinct_programs = ablation.distinctPrograms;
  figures.stepcoder_ablation_fingerprint = ablation.fingerprint;
}

/** The StepCoder pane's four arms run in `page`: seconds from the button to the table, and the distinct programs run. */
async function runAblation(page) {
  const started = Date.now();
  await page.click('#stepcoder-learn');
  const status = page.locator('#stepcoder-learn-status', { hasText: 'Done in' });
  await status.waitFor({ timeout: 1_800_000 });
  const seconds = (Date.now() - started) / 1000;
  const text = await status.textContent();
  return { seconds, distinctPrograms: Number(text.match(/(\d+) distinct programs/)[1]), fingerprint: text.match(/fingerprint ([0-9a-f]+)/)[1] };
}

/** Scoring MountainCar's correct world model on its 977-transition dataset: Pyodide in the page (a click every two seconds) against python3, best of 5 each. */
async function benchWorldModel(figures) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${port}/`);
  await showPane(page, 'search');
  await page.locator('#search-task').selectOption('MountainCar-v0');
  await page.locator('#search-method').selectOption('zero-shot');
  await page.locator('#search-odds summary').click();
  await page.locator('#odds-generate_correct').fill('1');
  await page.locator('#odds-generate_correct').dispatchEvent('change');
  await page.locator('#search-go').click();
  await page.locator('#search-status', { hasText: 'Search over' }).waitFor({ timeout: 120_000 });
  await page.locator('#search-tree .node').nth(1).click();
  const inside = [];
  for (let round = 0; round < 5; round++) {
    // At a person's pace: the page loads its next interpreters once a program is done, and a click
    // within the second after would run beside them.
    await page.waitForTimeout(2000);
    await page.click('#cwm-score');
    await page.locator('#cwm-score:enabled').waitFor({ timeout: 60_000 });
    inside.push(parseFloat(await page.locator('#cwm-python-ms').textContent()));
  }
  await context.close();
  figures.pyodide_cwm_score_977_transitions_ms_best_of_5 = Math.min(...inside);
  const program = path.join(await mkdtemp(path.join(tmpdir(), 'rlcg-cwm-')), 'mountain_car.py');
  const model = rlcg(['cwm', 'model', '--env', 'MountainCar-v0']);
  await writeFile(program, model.stdout);
  const native = [];
  for (let round = 0; round < 5; round++) {
    const out = rlcg(['cwm', 'score', '--env', 'MountainCar-v0', '--program', program, '--json']);
    native.push(JSON.parse(out.stdout.trim().split('\n').pop()).python_ms);
  }
  figures.native_python3_cwm_score_977_transitions_ms_best_of_5 = Math.min(...native);
  figures.pyodide_over_native_python3_cwm_score = figures.pyodide_cwm_score_977_transitions_ms_best_of_5 / figures.native_python3_cwm_score_977_transitions_ms_best_of_5;
}

/**
 * Two builds of the page side by side (`--before=DIR`), taking turns round by round so that both
 * meet the same machine, or one (`--native`), with native figures beside them: the best of three rounds for a wall
 * time, the median for a program's latency.
 */
async function benchSideBySide(figures, builds) {
  const rounds = Number(option('rounds') ?? 3);
  const taken = {};
  const keep = (name, build, value) => {
    ((taken[name] ??= {})[build] ??= []).push(value);
    console.log(`${build} ${name} ${value}`); // as it comes: a long run that fails keeps what it took
  };
  const open = async (url) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => document.querySelector('#start')?.disabled === false);
    return { context, page };
  };
  const timed = async (action) => {
    const started = Date.now();
    await action();
    return Date.now() - started;
  };
  const searchTasks = await searchTasksFile();

  for (let round = 0; round < rounds; round++) {
    for (const [build, url] of Object.entries(builds)) {
      let { context, page } = await open(url);
      const dqn = await train(page, 'executive', 'dqn', 500, 1);
      keep('dqn_executive_500_wall_s', build, dqn.wallMs / 1000);
      keep('dqn_learn_steps_per_s_of_training', build, dqn.learnSpeed);
      keep('orchestrator_5000_wall_ms', build, (await train(page, 'orchestrator', 'q-learning', 5000, 1)).wallMs);

      // Python: the page's first program, then one at a person's pace, then programs back to back,
      // each waiting for its interpreters. At rest, the state line gives the next worker's load
      // time and when it was ready after the verdict before: after the first program the next
      // interpreters start loading at its verdict; after the second they had loaded ahead.
      for (const which of ['first', 'second']) {
        await runLatencies(page, 1);
        const state = await page.locator('#python-state', { hasText: 'after the last verdict' }).textContent({ timeout: 60_000 });
        keep(`python_ready_after_${which}_verdict_ms`, build, parseFloat(state.match(/ready (\d+) ms after/)[1]));
        keep('python_interpreter_load_ms', build, parseFloat(state.match(/loaded in ([\d.]+) s/)[1]) * 1000);
        await page.waitForTimeout(2000);
      }
      const latencies = await runLatencies(page, 10);
      keep('python_run_back_to_back_ms_median', build, median(latencies));
      keep('python_samples_16_inside_harness_ms', build, await insidePyodide(page, SAMPLES));
      await context.close();
      ({ context, page } = await open(url));
      keep('python_search_10x10_inside_harness_ms', build, await insidePyodide(page, [searchTasks]));
      await context.close();

      // GIF-MCTS on binary_search at budget 20 with the simulated LLM (solved at the 7th call).
      ({ context, page } = await open(url));
      await showPane(page, 'search');
      await page.locator('#search-task').selectOption('binary_search');
      await page.locator('#search-method').selectOption('gif-mcts');
      await page.locator('#search-budget').fill('20');
      await page.locator('#search-budget').dispatchEvent('change');
      keep('gif_mcts_binary_search_budget_20_wall_s', build, (await timed(async () => {
        await page.locator('#search-go').click();
        await page.locator('#search-status', { hasText: 'Search over' }).waitFor({ timeout: 300_000 });
      })) / 1000);
      await context.close();

      // A world model's planning evaluation: CliffWalking's perfect model (GIF-MCTS's 7th call).
      ({ context, page } = await open(url));
      await showPane(page, 'search');
      await page.locator('#search-task').selectOption('CliffWalking-v0');
      await page.locator('#search-method').selectOption('gif-mcts');
      await page.locator('#search-go').click();
      await page.locator('#search-status', { hasText: 'Search over' }).waitFor({ timeout: 300_000 });
      await page.locator('#search-tree .node').last().click();
      await page.waitForTimeout(2000); // the page loads its next interpreters after a program
      keep('cwm_plan_cliffwalking_wall_s', build, (await timed(async () => {
        await page.locator('#cwm-plan').click();
        await page.locator('#cwm-returns', { hasText: 'R(CWM)' }).waitFor({ timeout: 300_000 });
      })) / 1000);
      await context.close();

      if (round === 0) {
        ({ context, page } = await open(url));
        await showPane(page, 'stepcoder');
        const ablation = await runAblation(page);
        keep('stepcoder_ablation_defaults_wall_s', build, ablation.seconds);
        keep('stepcoder_ablation_distinct_programs', build, ablation.distinctPrograms);
        keep('stepcoder_ablation_fingerprint', build, ablation.fingerprint);
        await context.close();
      }
    }
  }

  // Natively: the release CLI, and python3 through the same harness.
  const model = path.join(await mkdtemp(path.join(tmpdir(), 'rlcg-cwm-')), 'cliff_walking.py');
  await writeFile(model, rlcg(['cwm', 'model', '--env', 'CliffWalking-v0']).stdout);
  for (let round = 0; round < rounds; round++) {
    let report;
    keep('dqn_executive_500_wall_s', 'native', (await timed(async () => {
      report = JSON.parse(rlcg(['train', '--env', 'executive', '--agent', 'dqn', '--episodes', '500', '--seed', '1', '--json']).stdout.trim().split('\n').pop());
    })) / 1000);
    keep('dqn_learn_steps_per_s_of_training', 'native', report.learn_steps / report.wall_seconds);
    keep('gif_mcts_binary_search_budget_20_wall_s', 'native', (await timed(async () => rlcg(['search', '--task', 'binary_search', '--seed', '1', '--budget', '20']))) / 1000);
    keep('cwm_plan_cliffwalking_wall_s', 'native', (await timed(async () => rlcg(['cwm', 'plan', '--env', 'CliffWalking-v0', '--program', model]))) / 1000);
  }
  // The page's ablation defaults: four arms, 10 seeds, the four tasks, 1024 executions each.
  let ablation;
  keep('stepcoder_ablation_defaults_wall_s', 'native', (await timed(async () => {
    ablation = JSON.parse(rlcg(['stepcoder', 'learn', '--seeds', '10', '--json']).stdout.trim().split('\n').pop());
  })) / 1000);
  keep('stepcoder_ablation_distinct_programs', 'native', ablation.distinct_programs);
  keep('python_samples_16_inside_harness_ms', 'native', insideNative(SAMPLES));
  keep('python_search_10x10_inside_harness_ms', 'native', insideNative([searchTasks]));

  for (const [name, byBuild] of Object.entries(taken)) {
    const best = (xs) => (typeof xs[0] !== 'number' ? [...new Set(xs)].join(' ') : name.endsWith('median') ? median(xs) : name.includes('_per_s') ? Math.max(...xs) : Math.min(...xs));
    figures[name] = Object.fromEntries(Object.entries(byBuild).map(([build, xs]) => [build, best(xs)]));
  }
}
