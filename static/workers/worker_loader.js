// The training worker's entry: loads wasm-bindgen's script, then the worker's wasm. Ours rather than
// trunk's `data-loader-shim`, which passes the path bare, an initialisation wasm-bindgen warns of
// as deprecated on every load.
// A message that comes while the wasm loads would find no handler and be lost (the page may ask
// for a model's training before the worker has said it is ready): such messages are held here and
// handed to the worker, in order, once its start has set its handler.
const early = [];
const hold = (event) => early.push(event.data);
self.addEventListener('message', hold);
importScripts('./worker.js');
wasm_bindgen({ module_or_path: './worker_bg.wasm' }).then(() => {
  self.removeEventListener('message', hold);
  for (const data of early.splice(0)) self.dispatchEvent(new MessageEvent('message', { data }));
});
