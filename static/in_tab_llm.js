// The "In this tab" LLM (imported by the app through wasm-bindgen): llama.cpp compiled to
// WebAssembly by wllama (MIT), whose code and wasm the build copies to ./wllama/ from npm. They are
// imported only when a user first uses this provider, so a visitor who never does downloads none
// of it; the service worker caches them then (static/sw.js, "on demand"). Models are GGUF files
// that the user downloads from a URL shown to them or chooses from their disk, kept by wllama in
// the browser's origin-private file system; generation runs in wllama's own worker, so the page
// stays responsive.

let library;
let manager;
// The one model loaded for generation: { url, wllama }.
let loaded = null;

function libraryUrl(file) {
  return new URL(`wllama/${file}`, document.baseURI).href;
}

async function wllama() {
  library ??= await import(libraryUrl('index.js'));
  return library;
}

/** The models kept in this browser. Kept models are used as they are, with no network check. */
async function models() {
  const { ModelManager } = await wllama();
  manager ??= new ModelManager({ allowOffline: true, logger: quiet });
  return manager;
}

// llama.cpp says why it refuses a model ("unknown model architecture: …", "tensor … has wrong
// shape") and where it put the model's layers only in its log, which wllama passes to this logger:
// a load's lines are kept to say so where the model is used, so its errors are only warnings in
// the console.
let logged = [];
function keep(write) {
  return (...args) => {
    if (logged.length < 1000) logged.push(args.map(String).join(' '));
    write(...args);
  };
}
const quiet = { debug() {}, log: keep(() => {}), warn: keep(console.warn), error: keep(console.warn) };

/** Where a loaded model runs, from its load's log and wllama: WebGPU when llama.cpp offloaded layers
 * to it, and the CPU threads. */
function deviceOf(instance) {
  const threads = instance.getNumThreads();
  const cpu = `the CPU, ${threads} thread${threads === 1 ? '' : 's'}`;
  const offloaded = logged.map((line) => line.match(/offloaded (\d+)\/(\d+) layers to GPU/)).findLast(Boolean);
  return offloaded && Number(offloaded[1]) > 0 ? `WebGPU (${offloaded[1]} of ${offloaded[2]} layers) and ${cpu}` : cpu;
}

/** `error` of a fetch of `url`, said in words where the browser gave no answer to read (a TypeError,
 * "Failed to fetch"): it does not tell a server that is down from one that does not let other sites
 * read its files (CORS), and a page that is cross-origin isolated cannot probe which, so both are
 * named, with the way around the second. */
function withoutAnswer(url, error) {
  if (!(error instanceof TypeError)) return error;
  return new Error(`no answer this page may read came from ${new URL(url).origin} (${error.message}): the server is down or unreachable, or it does not let other sites read its files (CORS: it sends no Access-Control-Allow-Origin header). Download the file yourself and choose it as a model file from this computer, or serve it with that header`);
}

/** A model's size in bytes from its server, before any download; null when the server does not say. */
export async function modelSize(url) {
  const response = await fetch(url, { method: 'HEAD' }).catch((error) => { throw withoutAnswer(url, error); });
  if (!response.ok) throw new Error(`the server answered ${response.status} ${response.statusText} for ${url}`);
  const length = response.headers.get('Content-Length');
  return length === null ? null : Number(length);
}

/** The kept models as JSON: [{ url, size, kept_on }], `kept_on` the date and time its file was
 * written, in the reader's locale (null where the store does not say). */
export async function keptModels() {
  const manager = await models();
  const kept = await manager.getModels();
  const when = async (url) => {
    const file = await manager.cacheManager.open(url).catch(() => null);
    return file?.lastModified ? new Date(file.lastModified).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : null;
  };
  return JSON.stringify(await Promise.all(kept.map(async (model) => ({ url: model.url, size: model.size, kept_on: await when(model.url) }))));
}

export async function removeModel(url) {
  if (loaded?.url === url) await unload();
  for (const model of await (await models()).getModels()) {
    if (model.url === url) await model.remove();
  }
}

/** What this page's storage uses and may use, in bytes ({ usage, quota }), or null. */
export async function storageEstimate() {
  return navigator.storage?.estimate?.().catch(() => null) ?? null;
}

/** The kept model file at `url`, as a Blob (null when none is kept). */
export async function keptFile(url) {
  return (await models()).cacheManager.open(url);
}

/** Downloads `url` into the browser, reporting (loaded, total) bytes; `signal` cancels. A model
 * kept before is not downloaded again. */
export async function download(url, onProgress, signal) {
  const kept = (await (await models()).getModels()).find((model) => model.url === url);
  if (kept) return onProgress(kept.size, kept.size);
  await (await models()).downloadModel(url, {
    signal,
    progressCallback: ({ loaded: done, total }) => onProgress(done, total),
  }).catch((error) => { throw withoutAnswer(url, error); });
}

/** Keeps `file`, a GGUF model chosen from the user's disk, in the browser under `address` (see
 * ProviderSettings::local_model_address), as a download is kept, reporting (written, total) bytes;
 * `signal` cancels, and leaves nothing behind. */
export async function keepLocal(address, file, onProgress, signal) {
  const cache = (await models()).cacheManager;
  const name = await cache.getNameFromURL(address);
  if (loaded?.url === address) await unload();
  let written = 0;
  let stop;
  const counted = file.stream().pipeThrough(new TransformStream({
    start(out) {
      // Cancel ends the copy at once, not when the file's next piece comes (a slow disk's may not).
      stop = () => out.error(signal.reason);
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
    },
    transform(chunk, out) {
      written += chunk.byteLength;
      onProgress(written, file.size);
      out.enqueue(chunk);
    },
  }));
  const metadata = { etag: `${file.size}-${file.lastModified}`, originalSize: file.size, originalURL: address };
  try {
    await cache.write(name, counted, metadata);
  } catch (error) {
    await cache.delete(name).catch(() => {});
    throw error;
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

async function unload() {
  const previous = loaded;
  loaded = null;
  await previous?.wllama.exit();
}

/** The kept model at `url`, loaded for generation (once; a different url replaces it). */
async function model(url) {
  if (loaded?.url === url) return loaded.wllama;
  await unload();
  const kept = (await (await models()).getModels()).find((m) => m.url === url);
  // The app says what to do about it (download it, or choose the file again).
  if (!kept) throw Object.assign(new Error(`${url} is not in this browser`), { name: 'NotKept' });
  const { Wllama } = await wllama();
  const instance = new Wllama({ default: libraryUrl('wllama.wasm') }, { logger: quiet, allowOffline: true });
  // Safari's compatibility build comes from a CDN; this page loads nothing from one.
  instance.setCompat(null);
  // The reply's start, when the last message is the assistant's, is continued (as llama-server does).
  logged = [];
  let failure = null;
  // Every core the browser gives: wllama's default, half of them, ran a 0.5B model at half the
  // speed on two cores (docs/benchmarks.md, "The model in the tab at the machine's speed").
  const threads = navigator.hardwareConcurrency || 1;
  await instance.loadModel(kept, { n_ctx: 4096, n_threads: threads, prefill_assistant: true }).catch((error) => { failure = error; });
  // llama.cpp may refuse a model while wllama's load still resolves (and its first chat then
  // crashes the worker): its log says so either way.
  const reason = logged.find((line) => /error loading model/i.test(line))
    ?? (failure && logged.findLast((line) => /error|unknown|wrong|invalid|failed/i.test(line)));
  if (failure || reason) {
    // A refused model leaves its instance unusable: ended here, the next try starts afresh.
    await instance.exit().catch(() => {});
    logged = [];
    if (!reason) throw failure;
    // The app says what to do about it (remove it, or choose another model).
    throw Object.assign(new Error(`llama.cpp refused the model: ${reason.trim()}`), { name: 'Refused' });
  }
  loaded = { url, wllama: instance, device: deviceOf(instance) };
  logged = [];
  return instance;
}

/** Whether the kept model at `url` is loaded for generation (else the next chat loads it first). */
export function isLoaded(url) {
  return loaded?.url === url;
}

/** One chat completion with the kept model at `url`. `request` is the JSON of
 * { messages, temperature, top_p, max_tokens, seed }; `onText` gets each piece as it comes;
 * `signal` cancels. Returns the JSON of { text, prompt_tokens, completion_tokens, tokens_per_second,
 * writing_ms, device }. */
export async function chat(url, request, onText, signal) {
  const instance = await model(url);
  const { messages, temperature, top_p, max_tokens, seed } = JSON.parse(request);
  let text = '';
  let usage = null;
  let timings = null;
  const began = performance.now();
  let firstToken = null;
  // The last chunk carries the token counts only when asked for, as with an endpoint. The prompt's
  // start that the last call read (a search resends the task each call) is kept, not read again.
  const stream = await instance.createChatCompletion({
    messages, temperature, top_p, max_tokens, seed, stream: true, stream_options: { include_usage: true }, cache_prompt: true,
    abortSignal: signal,
  });
  for await (const chunk of stream) {
    const piece = chunk.choices?.[0]?.delta?.content ?? '';
    if (piece) {
      firstToken ??= performance.now();
      text += piece;
      onText(piece);
    }
    usage = chunk.usage ?? usage;
    timings = chunk.timings ?? timings;
  }
  const completion = usage?.completion_tokens ?? 0;
  const seconds = (performance.now() - (firstToken ?? began)) / 1000;
  return JSON.stringify({
    text,
    prompt_tokens: usage?.prompt_tokens ?? 0,
    completion_tokens: completion,
    // llama.cpp's own measures where it gives them.
    tokens_per_second: timings?.predicted_per_second ?? (seconds > 0 ? completion / seconds : 0),
    writing_ms: timings?.predicted_ms ?? seconds * 1000,
    device: loaded?.device ?? '',
  });
}
