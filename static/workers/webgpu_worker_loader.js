// The nested WebGPU worker's entry (see worker_loader.js): wasm-bindgen's script, then its wasm.
importScripts('./webgpu_worker.js');
wasm_bindgen({ module_or_path: './webgpu_worker_bg.wasm' });
