// The training worker's entry: loads wasm-bindgen's script, then the worker's wasm. Ours rather than
// trunk's `data-loader-shim`, which passes the path bare, an initialisation wasm-bindgen warns of
// as deprecated on every load.
importScripts('./worker.js');
wasm_bindgen({ module_or_path: './worker_bg.wasm' });
