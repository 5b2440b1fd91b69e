// The Python worker: two Pyodides (served with the page from ../pyodide/) running the shared
// harness, the judge and the candidate (pair.mjs): the program runs in the candidate, its tests in
// the judge, so nothing the program does to its interpreter reaches its own verdict. A module
// worker, because Pyodide refuses classic ones. The page owns the clock: it interrupts a run
// through the shared interrupt buffer, or terminates this worker and starts another. Each worker
// runs one program (the page keeps the next ones' workers loaded), so nothing a program does to
// its interpreters, their files or this realm reaches another program's verdict.
//
// Messages in:  {type: "start", warm_start?, warm_start_follows?, wasm?} (first)
//               {type: "warm_start_part" | "warm_start", …} (as sent below, after a start with warm_start_follows)
//               {type: "interrupt_buffer", buffer: SharedArrayBuffer} | {type: "run", id, request: "<harness request JSON>"}
// Messages out: {type: "loaded", wasm?}, {type: "warm_start_part", wasm?, judge}, {type: "warm_start", wasm?, judge, candidate}
//               (a cold start's, before "ready": Pyodide is compiled, then its snapshots; the part only
//               where they are shared memory)
//               {type: "ready", load_ms} | {type: "verdict", id, verdict: "<JSON>"}
//               {type: "failed", id?, message}
//
// Warm starts: the page's first worker starts cold. It compiles Pyodide's wasm, loads both
// interpreters, imports the harness and warms them up with one small program of each kind, then,
// before any program has run in it, hands the page the compiled module and a memory snapshot of
// each interpreter. Every later worker is restored from these (Pyodide's `_loadSnapshot`): a new
// realm and new interpreters, in the state the first worker had before its program, without
// compiling Pyodide, starting CPython, importing the harness or warming up again. The page keeps
// them for the session, so each session's interpreters share the hash secret of its first one
// (CPython cannot change it once strings are hashed); `random` is reseeded in each (pair.mjs).
// The first worker's successor starts once the first has compiled Pyodide (before, it would take
// the cores that compiling uses), with the compiled module, and is told that its warm start
// follows: it loads everything else, and builds its interpreters' modules, while the first starts
// and warms up its interpreters, and restores their memory as soon as the snapshots come.
// Where the page is cross-origin isolated the snapshots come as SharedArrayBuffers, so that the
// page hands them to each worker without copying 60 MB on its main thread (a long task of 60–180 ms
// each time). A worker copies them into memory of its own before Pyodide reads them and keeps no
// reference to the shared ones: no program can reach the memory later workers start from.
//
// Programs get no way out of this worker (docs/guide.md, "The Python sandbox"). Python reaches
// JavaScript objects through `pyodide.ffi` and the constructor chain of any proxy, so hiding the
// `js` module is not enough: once Pyodide and the harness are loaded, `lockDown` takes from this
// realm every API that does I/O, and every way of turning a string into code. What a program can
// still reach is computation. The page's host sends a Content-Security-Policy for this script as
// well (scripts/serve-dist.py), but nothing here depends on it.
import { loadPyodide } from '../pyodide/pyodide.mjs';
import { harnessSources, loadPair } from './pair.mjs';

// What the worker itself needs, kept where programs cannot reach: module bindings are not
// properties of any object, and closures cannot be inspected.
const post = self.postMessage.bind(self);
const started = performance.now();
let handle;
let interpreters;

// Listen before the lockdown; `addEventListener` rather than `onmessage`, which a program that
// found the global scope could call to forge a verdict.
self.addEventListener('message', ({ data }) => onMessage(data));

// A world model as the LLM writes them (MountainCar's dynamics): scoring one steps it a thousand
// times, and a worker that has not run such a loop before runs it several times slower.
const WARM_UP_WORLD_MODEL = `import math

class Environment:
    def __init__(self):
        self.state = [0.0, 0.0]

    def set_state(self, state):
        self.state = state

    def step(self, action):
        position, velocity = self.state
        velocity += (action - 1) * 0.001 + math.cos(3 * position) * -0.0025
        velocity = min(max(velocity, -0.07), 0.07)
        position = min(max(position + velocity, -1.2), 0.6)
        self.state = [position, velocity]
        return list(self.state), -1.0, position >= 0.5
`;

// Settles once the page's "start" message has been acted on (a worker starts once).
let ready;
// What a worker started with `warm_start_follows` waits for: the judge's snapshot (it may come
// first, in a `warm_start_part`) and the whole warm start. A promise settles once: a later message,
// forged or not, changes nothing.
const arrival = () => {
  let settle;
  const promise = new Promise((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
};
const judgeComing = arrival();
const warmStartComing = arrival();

async function start(warm, follows, compiled) {
  const indexURL = new URL('../pyodide/', import.meta.url).href;
  const sources = await harnessSources(async (path) => (await fetch(new URL(`./${path}`, import.meta.url))).text());
  // A worker told that its warm start follows does all that does not need it (its scripts, the
  // harness, Pyodide's scripts and files, its interpreters' modules) and waits for it there.
  const [judgeFrom, coming] = follows ? [judgeComing.promise, warmStartComing.promise] : [warm, warm].map((w) => Promise.resolve(w));
  const wasm = compiled ? Promise.resolve(compiled) : judgeFrom.then((w) => w?.wasm ?? compilePyodide(`${indexURL}pyodide.asm.wasm`));
  // The page starts the next worker now, on the core that loading this one leaves free.
  if (!follows && !warm) wasm.then((module) => postWithModule({ type: 'loaded' }, module), () => {});
  // Pyodide instantiates the module it fetches; both interpreters take the compiled one instead.
  // The lockdown replaces this function for programs.
  WebAssembly.instantiateStreaming = async (_response, imports) => {
    const module = await wasm;
    return { instance: await WebAssembly.instantiate(module, imports), module };
  };
  const snapshots = (follows || warm) && {
    judge: restorable(judgeFrom.then((w) => w.judge)),
    candidate: restorable(coming.then((w) => w.candidate)),
  };
  // Pyodide decodes a snapshot's header with TextDecoder, which refuses a view of a resizable
  // buffer (`restorable`): until the interpreters have loaded, before any program, it decodes a copy.
  const decode = TextDecoder.prototype.decode;
  TextDecoder.prototype.decode = function decodeCopy(input, options) {
    return decode.call(this, input?.buffer?.resizable ? input.slice() : input, options);
  };
  let pair;
  try {
    pair = await loadPair(loadPyodide, indexURL, sources, { snapshots, snapshottable: !snapshots });
  } finally {
    TextDecoder.prototype.decode = decode;
  }
  interpreters = [pair.judge, pair.candidate];
  handle = pair.handle;
  if (!snapshots) {
    // Each worker runs one program, so every program would pay the interpreter's first-use costs
    // (modules the harness imports lazily, the first compile and trace): a small program of each
    // kind pays them here, before the snapshot that later workers start from.
    handle(JSON.stringify({ code: 'def f(x):\n    return x\n', tests: ['assert f(1) == 1', 'assert f(1) == 2'] }));
    handle(JSON.stringify({ code: 'print(input())', tests: [{ stdin: 'a', stdout: 'a' }], coverage: false, analysis: false }));
    handle(JSON.stringify({ code: WARM_UP_WORLD_MODEL, predict: Array.from({ length: 1000 }, (_, i) => [[-0.5 + i / 2000, 0], i % 3]), coverage: false, analysis: false }));
    try {
      // Each snapshot goes out as soon as it is taken, where it is shared memory: the successor
      // waiting for them restores the judge while the candidate's is taken.
      const module = await wasm;
      const taken = {};
      pair.snapshot((name, bytes) => {
        taken[name] = shareable(bytes);
        if (name === 'judge' && taken.judge instanceof SharedArrayBuffer) postWithModule({ type: 'warm_start_part', judge: taken.judge }, module);
      });
      postWithModule({ type: 'warm_start', ...taken }, module);
    } catch (error) {
      // Later workers then start cold, as this one did.
      console.warn(`no memory snapshot of the Python interpreters: ${error}`);
    }
  }
  for (const pyodide of interpreters) closeDoorsToJavaScript(pyodide);
  lockDown();
}

/** Posts a message with Pyodide's compiled `module`, or without it where the browser cannot send one: later workers then compile their own. */
function postWithModule(message, module) {
  const transfer = Object.values(message).filter((bytes) => ArrayBuffer.isView(bytes)).map((bytes) => bytes.buffer);
  try {
    post({ ...message, wasm: module }, transfer);
  } catch {
    post(message, transfer);
  }
}

/** A snapshot's bytes as the page keeps them: shared where the page is cross-origin isolated, else the bytes themselves (transferred). */
function shareable(bytes) {
  if (!self.crossOriginIsolated) return bytes;
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  return shared;
}

/**
 * A snapshot as `loadPair` takes it (`{snapshot, fsInit}`, for Pyodide's `_loadSnapshot` and
 * `fsInit`), from the promise of its bytes. Pyodide builds an interpreter's module (about 0.2 s of
 * a restore) before it reads the snapshot, which it needs only to restore the memory after its
 * `fsInit` hook: given a view of a resizable buffer, filled by that hook when the bytes come, a
 * worker builds both modules while the first worker still warms up. The bytes are copied into
 * memory this worker alone holds (Pyodide keeps what it is given), so that no program reaches
 * shared memory that later workers start from. Without resizable buffers (Firefox before 128),
 * Pyodide waits for the copy.
 */
function restorable(arriving) {
  const own = (bytes) => (bytes instanceof SharedArrayBuffer ? new Uint8Array(bytes).slice() : bytes);
  if (!('resize' in ArrayBuffer.prototype)) return { snapshot: arriving.then(own) };
  // An interpreter's memory is at most wasm32's 4 GiB; the reservation is address space only.
  const buffer = new ArrayBuffer(0, { maxByteLength: 2 ** 32 });
  return {
    snapshot: new Uint8Array(buffer),
    fsInit: async () => {
      const bytes = new Uint8Array(await arriving);
      buffer.resize(bytes.length);
      new Uint8Array(buffer).set(bytes);
    },
  };
}

/** Pyodide's wasm, compiled; from the bytes where a host serves it without the wasm MIME type. */
async function compilePyodide(url) {
  try {
    return await WebAssembly.compileStreaming(fetch(url));
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return WebAssembly.compile(await (await fetch(url)).arrayBuffer());
  }
}

const SHARED_BUILT_INS = [
  'Object', 'Function', 'Array', 'String', 'Number', 'Boolean', 'Symbol', 'BigInt', 'Error', 'TypeError',
  'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError', 'Map', 'Set', 'WeakMap', 'WeakSet',
  'WeakRef', 'FinalizationRegistry', 'Promise', 'RegExp', 'Date', 'ArrayBuffer', 'SharedArrayBuffer', 'DataView',
  'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'JSON', 'Math', 'Reflect', 'Atomics',
  'TextDecoder', 'TextEncoder', 'Proxy', 'WebAssembly',
];

function refuse(what) {
  return function refused() {
    throw new EvalError(`${what} is not available to programs in the playground's Python sandbox`);
  };
}

// 1. Python's doors to JavaScript, in each interpreter: the `js` and `pyodide_js` modules (and their
//    submodules, which the import system caches), and Pyodide's own loaders, which fetch and import
//    URLs.
function closeDoorsToJavaScript(pyodide) {
  pyodide.runPython(`
import sys
for name in [n for n in sys.modules if n == "js" or n.startswith(("js.", "pyodide_js"))]:
    del sys.modules[name]
`);
  pyodide.unregisterJsModule('js');
  pyodide.unregisterJsModule('pyodide_js');
  for (const name of ['loadPackage', 'loadPackagesFromImports', 'registerJsModule', 'mountNativeFS', 'mountNodeFS']) {
    if (name in pyodide) pyodide[name] = refuse(`pyodide.${name}`);
  }
}

function lockDown() {
  // 2. Strings into code: eval, the four function constructors (reachable as `.constructor` of any
  //    function, so of any proxy's constructor), and timers given a string.
  const intrinsics = [
    ['Function', function () {}],
    ['AsyncFunction', async function () {}],
    ['GeneratorFunction', function* () {}],
    ['AsyncGeneratorFunction', async function* () {}],
  ];
  for (const [name, example] of intrinsics) {
    const prototype = Object.getPrototypeOf(example);
    const refused = refuse(name);
    // `instanceof Function` must still work for Pyodide's own type checks.
    Object.defineProperty(refused, 'prototype', { value: prototype.constructor.prototype });
    Object.defineProperty(prototype, 'constructor', { value: refused, writable: false, configurable: false });
    if (name === 'Function') Object.defineProperty(globalThis, 'Function', { value: refused, writable: false, configurable: false });
  }
  Object.defineProperty(globalThis, 'eval', { value: refuse('eval'), writable: false, configurable: false });
  for (const name of ['setTimeout', 'setInterval']) {
    const timer = globalThis[name].bind(globalThis);
    const checked = (callback, ...rest) => {
      if (typeof callback !== 'function') throw new EvalError(`${name} with a string is not available to programs`);
      return timer(callback, ...rest);
    };
    Object.defineProperty(globalThis, name, { value: checked, writable: false, configurable: false });
  }

  // 3. I/O: network, storage, other workers and contexts, fonts (a FontFace loads a URL), and the
  //    channel to the page. Deleted from the global scope and every prototype it inherits from,
  //    then pinned to `undefined` so that nothing can put them back.
  const capabilities = [
    'fetch', 'XMLHttpRequest', 'WebSocket', 'WebSocketStream', 'EventSource', 'WebTransport',
    'indexedDB', 'caches', 'cookieStore', 'navigator', 'importScripts', 'Worker', 'SharedWorker',
    'BroadcastChannel', 'postMessage', 'close', 'onmessage', 'FontFace', 'fonts', 'Notification',
    'RTCPeerConnection', 'RTCDataChannel', 'FileSystemHandle', 'StorageManager',
  ];
  for (let scope = globalThis; scope && scope !== Object.prototype; scope = Object.getPrototypeOf(scope)) {
    for (const name of capabilities) {
      if (Object.prototype.hasOwnProperty.call(scope, name)) delete scope[name];
    }
  }
  for (const name of capabilities) {
    Object.defineProperty(globalThis, name, { value: undefined, writable: false, configurable: false });
  }
  // WebAssembly may compile bytes a program builds (it can only call what it is given), but not
  // stream them from a response.
  for (const name of ['compileStreaming', 'instantiateStreaming']) {
    if (name in WebAssembly) Object.defineProperty(WebAssembly, name, { value: refuse(`WebAssembly.${name}`) });
  }

  // 4. The built-ins both interpreters share, frozen: a program reaches them from any JavaScript
  //    value (`to_js([]).constructor.prototype`), and the judge's Pyodide runs on them too, so a
  //    program that changed one could reach into the judge's calls.
  const frozen = new Set();
  const harden = (value) => {
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null || frozen.has(value)) return;
    frozen.add(value);
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) {
      const property = Object.getOwnPropertyDescriptor(value, key);
      for (const part of [property?.value, property?.get, property?.set]) harden(part);
    }
    harden(Object.getPrototypeOf(value));
  };
  for (const name of SHARED_BUILT_INS) harden(globalThis[name]);
  for (const example of [function* () {}, async function () {}, async function* () {}, [][Symbol.iterator](), new Map().entries(), new Set().values(), ''[Symbol.iterator]()]) {
    harden(example);
  }
}

async function onMessage(data) {
  if (data.type === 'start') {
    if (ready) return;
    ready = start(data.warm_start, data.warm_start_follows === true, data.wasm instanceof WebAssembly.Module ? data.wasm : undefined);
    ready.then(
      () => post({ type: 'ready', load_ms: performance.now() - started }),
      (error) => post({ type: 'failed', message: String(error) }),
    );
    return;
  }
  if (!ready) return; // nothing before "start"
  if (data.type === 'warm_start' || data.type === 'warm_start_part') {
    judgeComing.settle(data);
    if (data.type === 'warm_start') warmStartComing.settle(data);
    return;
  }
  if (data.type === 'interrupt_buffer') {
    // Both interpreters watch it: the candidate while the program runs, the judge while a test does.
    ready.then(() => interpreters.forEach((pyodide) => pyodide.setInterruptBuffer(new Int32Array(data.buffer))), () => {});
    return;
  }
  if (data.type !== 'run') return;
  try {
    await ready;
    post({ type: 'verdict', id: data.id, verdict: handle(data.request) });
  } catch (error) {
    post({ type: 'failed', id: data.id, message: String(error) });
  }
}
