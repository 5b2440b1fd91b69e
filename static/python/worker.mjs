// The Python worker: Pyodide (served with the page from ../pyodide/) running the shared harness.
// A module worker, because Pyodide refuses classic ones. The page owns the clock: it interrupts a run
// through the shared interrupt buffer, or terminates this worker and starts another.
//
// Messages in:  {type: "interrupt_buffer", buffer: SharedArrayBuffer}
//               {type: "run", id, request: "<harness request JSON>"}
// Messages out: {type: "ready", load_ms} | {type: "verdict", id, verdict: "<JSON>"}
//               {type: "failed", id?, message}
import { loadPyodide } from '../pyodide/pyodide.mjs';

// Keep what the worker itself needs before the capabilities are taken away from programs.
const post = self.postMessage.bind(self);
const started = performance.now();
let handle;

const ready = (async () => {
  const pyodide = await loadPyodide({ indexURL: new URL('../pyodide/', import.meta.url).href });
  const source = await (await fetch(new URL('./harness.py', import.meta.url))).text();
  pyodide.FS.writeFile('/home/pyodide/harness.py', source);
  pyodide.runPython('import sys; sys.path.insert(0, "/home/pyodide"); import harness');
  handle = pyodide.runPython(
    'import json, harness\n(lambda request: json.dumps(harness.handle(json.loads(request))))',
  );
  lockDown(pyodide);
  return pyodide;
})();

// Programs must not reach the page's storage or the network: drop the JS bridges from Python and
// the capabilities from this worker's global scope (a worker has no DOM; the API key never comes here).
function lockDown(pyodide) {
  pyodide.runPython('import sys\nfor name in ("js", "pyodide_js"):\n    sys.modules.pop(name, None)');
  pyodide.unregisterJsModule('js');
  pyodide.unregisterJsModule('pyodide_js');
  const capabilities = [
    'fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'WebTransport', 'indexedDB', 'caches',
    'importScripts', 'Worker', 'SharedWorker', 'BroadcastChannel', 'postMessage', 'close',
  ];
  for (let scope = self; scope && scope !== Object.prototype; scope = Object.getPrototypeOf(scope)) {
    for (const name of capabilities) {
      if (Object.prototype.hasOwnProperty.call(scope, name)) delete scope[name];
    }
  }
  for (const name of capabilities) {
    if (name in self) Object.defineProperty(self, name, { value: undefined, configurable: false });
  }
}

ready.then(
  () => post({ type: 'ready', load_ms: performance.now() - started }),
  (error) => post({ type: 'failed', message: `Python could not start: ${error}` }),
);

self.onmessage = async ({ data }) => {
  if (data.type === 'interrupt_buffer') {
    (await ready).setInterruptBuffer(new Int32Array(data.buffer));
    return;
  }
  if (data.type !== 'run') return;
  try {
    await ready;
    post({ type: 'verdict', id: data.id, verdict: handle(data.request) });
  } catch (error) {
    post({ type: 'failed', id: data.id, message: `the Python worker failed: ${error}` });
  }
};
