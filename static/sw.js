// The service worker: after one visit the page, both wasm modules, the Python harness and Pyodide
// come from a versioned cache, so training and Python tests work with the network off. It also adds
// the headers a host should send (static/headers.json) to every response that lacks them, the
// technique of coi-serviceworker: on a plain static host (GitHub Pages, say) the page is then
// cross-origin isolated from its second load on, and can interrupt a runaway Python program.
// The build (scripts/precache-list.mjs, a Trunk hook) replaces the list below with every file of
// the build and a version hashed from their contents; a new build is therefore a new service worker,
// which the page offers to switch to ("update available").
const PRECACHE = /*PRECACHE*/ { version: 'unbuilt', files: [] };
// Files of the build cached the first time they are fetched (the WebGPU worker, the in-tab LLM's library).
const ON_DEMAND = new Set((PRECACHE.onDemand ?? []).map((file) => new URL(file, self.location).pathname));
const CACHE = `rlcg-${PRECACHE.version}`;
// static/headers.json, written in by the same build hook.
const HEADERS = /*HEADERS*/ { everywhere: {}, pythonWorker: {} };
const PYTHON_FOLDER = new URL('./python/', self.location).pathname;

/** `response` with the headers it lacks of those the host should have sent for `url`. */
function withHostHeaders(response, url) {
  // An opaque or error response cannot be read or rebuilt; none comes from this origin's files.
  if (response.status === 0) return response;
  const wanted = { ...HEADERS.everywhere, ...(url.pathname.startsWith(PYTHON_FOLDER) ? HEADERS.pythonWorker : {}) };
  const missing = Object.entries(wanted).filter(([name]) => !response.headers.has(name));
  if (missing.length === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of missing) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // `reload`: fill the cache from the server, not from the HTTP cache of an older build.
    await cache.addAll(PRECACHE.files.map((file) => new Request(file, { cache: 'reload' })));
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith('rlcg-') && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

// The page asks the waiting worker to take over when the user accepts the update.
self.addEventListener('message', (event) => {
  if (event.data === 'skip_waiting') event.waitUntil(self.skipWaiting());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const cached = await cache.match(request, { ignoreSearch: true })
      ?? (request.mode === 'navigate' ? await cache.match('./') : undefined);
    if (cached) return withHostHeaders(cached, url);
    const response = await fetch(request);
    if (response.ok && ON_DEMAND.has(url.pathname)) await cache.put(request, response.clone());
    return withHostHeaders(response, url);
  })());
});
