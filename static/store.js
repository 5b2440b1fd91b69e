// The page's IndexedDB store of runs (imported by the app through wasm-bindgen): one record per run,
// keyed by run id, holding the JSON the app writes.
const DATABASE = 'rlcg';
const RUNS = 'runs';
let database;

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(RUNS);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function transaction(mode, operation) {
  database ??= await open();
  return new Promise((resolve, reject) => {
    const tx = database.transaction(RUNS, mode);
    const request = operation(tx.objectStore(RUNS));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

export const putRun = (id, json) => transaction('readwrite', (runs) => runs.put(json, id));
export const deleteRun = (id) => transaction('readwrite', (runs) => runs.delete(id));
export const allRuns = () => transaction('readonly', (runs) => runs.getAll());
