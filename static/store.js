// The page's IndexedDB stores (imported by the app through wasm-bindgen), holding the JSON the app
// writes: `runs`, one record per run keyed by run id; `tasks`, the imported task list under one key;
// `settings`, small values by name (the run form's last values).
const DATABASE = 'rlcg';
const RUNS = 'runs';
const TASKS = 'tasks';
const SETTINGS = 'settings';
let database;

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => {
      for (const store of [RUNS, TASKS, SETTINGS]) {
        if (!request.result.objectStoreNames.contains(store)) request.result.createObjectStore(store);
      }
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function transaction(store, mode, operation) {
  database ??= await open();
  return new Promise((resolve, reject) => {
    const tx = database.transaction(store, mode);
    const request = operation(tx.objectStore(store));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

export const putRun = (id, json) => transaction(RUNS, 'readwrite', (runs) => runs.put(json, id));
export const deleteRun = (id) => transaction(RUNS, 'readwrite', (runs) => runs.delete(id));
export const allRuns = () => transaction(RUNS, 'readonly', (runs) => runs.getAll());
export const putTasks = (json) => transaction(TASKS, 'readwrite', (tasks) => tasks.put(json, 'imported'));
export const getTasks = () => transaction(TASKS, 'readonly', (tasks) => tasks.get('imported'));
export const putSetting = (name, json) => transaction(SETTINGS, 'readwrite', (settings) => settings.put(json, name));
export const getSetting = (name) => transaction(SETTINGS, 'readonly', (settings) => settings.get(name));
