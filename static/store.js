// The page's IndexedDB stores (imported by the app through wasm-bindgen):
// `runs`, one small JSON description per run keyed by run id (spec, results, checkpoint, and how
// many episode records it has); `records`, the episode records in chunks of binary rows, keyed by
// [run id, chunk number], appended as a run trains; `tasks`, the imported task list under one key;
// `settings`, small texts by name (the run form's last values, the LLM's endpoint settings, the
// prompts; never the API key, which workers must not reach); `searches`, one JSON record per
// program search (seed 004) keyed by its number.
const DATABASE = 'rlcg';
const RUNS = 'runs';
const RECORDS = 'records';
const TASKS = 'tasks';
const SETTINGS = 'settings';
const SEARCHES = 'searches';
let database;

function open() {
  return new Promise((resolve, reject) => {
    // Version 2 added `records`; runs kept by version 1 hold their records in their JSON and are
    // rewritten in chunks when the page reads them. Version 3 added `searches`.
    const request = indexedDB.open(DATABASE, 3);
    request.onupgradeneeded = () => {
      for (const store of [RUNS, RECORDS, TASKS, SETTINGS, SEARCHES]) {
        if (!request.result.objectStoreNames.contains(store)) request.result.createObjectStore(store);
      }
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** Runs `operation(tx)` in one transaction; resolves with the result of the request it returns. */
async function transaction(stores, mode, operation) {
  database ??= await open();
  return new Promise((resolve, reject) => {
    const tx = database.transaction(stores, mode);
    const request = operation(tx);
    tx.oncomplete = () => resolve(request?.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

const chunksOf = (id) => IDBKeyRange.bound([id, 0], [id, Infinity]);

/**
 * Writes a run's description and its chunks from number `first` on, in one transaction, so that
 * the description never counts records that are not there. `fresh` first forgets every chunk kept
 * under this id (a run written for the first time may reuse the id of a removed one).
 */
export const putRun = (id, json, first, chunks, fresh) =>
  transaction([RUNS, RECORDS], 'readwrite', (tx) => {
    const records = tx.objectStore(RECORDS);
    if (fresh) records.delete(chunksOf(id));
    chunks.forEach((chunk, i) => records.put(chunk, [id, first + i]));
    return tx.objectStore(RUNS).put(json, id);
  });
export const deleteRun = (id) =>
  transaction([RUNS, RECORDS], 'readwrite', (tx) => {
    tx.objectStore(RECORDS).delete(chunksOf(id));
    return tx.objectStore(RUNS).delete(id);
  });
export const allRuns = () => transaction(RUNS, 'readonly', (tx) => tx.objectStore(RUNS).getAll());
/** Up to `count` of a run's chunks from number `first` on, in order (a slice at a time, so that the
 * browser never hands the page a whole long run at once). */
export const runChunks = (id, first, count) =>
  transaction(RECORDS, 'readonly', (tx) =>
    tx.objectStore(RECORDS).getAll(IDBKeyRange.bound([id, first], [id, first + count], false, true)));
export const putTasks = (json) => transaction(TASKS, 'readwrite', (tx) => tx.objectStore(TASKS).put(json, 'imported'));
export const getTasks = () => transaction(TASKS, 'readonly', (tx) => tx.objectStore(TASKS).get('imported'));
export const putSetting = (name, json) =>
  transaction(SETTINGS, 'readwrite', (tx) => tx.objectStore(SETTINGS).put(json, name));
export const getSetting = (name) => transaction(SETTINGS, 'readonly', (tx) => tx.objectStore(SETTINGS).get(name));
export const deleteSetting = (name) =>
  transaction(SETTINGS, 'readwrite', (tx) => tx.objectStore(SETTINGS).delete(name));
export const putSearch = (id, json) =>
  transaction(SEARCHES, 'readwrite', (tx) => tx.objectStore(SEARCHES).put(json, id));
export const deleteSearch = (id) => transaction(SEARCHES, 'readwrite', (tx) => tx.objectStore(SEARCHES).delete(id));
/** Every kept search as [id, json] pairs, in id order. */
export const allSearches = () =>
  transaction(SEARCHES, 'readonly', (tx) => {
    const store = tx.objectStore(SEARCHES);
    const request = store.getAll();
    const keys = store.getAllKeys();
    return { get result() { return keys.result.map((key, i) => [key, request.result[i]]); } };
  });
