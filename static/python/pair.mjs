// The harness's two interpreters in one realm (static/python/harness/crossing.py): the
// judge, which runs the tests, and the candidate, which runs the program and never sees a test. The
// judge asks the candidate its questions through `exchange`, a plain function of JSON text, so
// neither holds a reference to the other's Python objects. Used by the worker and by the tests
// that run the harness in Node.

/** The harness package's modules, `harness/<name>.py` beside this file (as engine/src/python.rs lists them). */
export const HARNESS_MODULES = ['__init__', 'analysis', 'banks', 'candidate', 'common', 'confinement', 'crossing', 'judge', 'kernel', 'link', 'planner', 'world_models'];

/** The harness's sources by module name, each file read with `read(path)` (relative to this folder). */
export async function harnessSources(read) {
  return Object.fromEntries(await Promise.all(HARNESS_MODULES.map(async (name) => [name, await read(`harness/${name}.py`)])));
}

/**
 * Loads both interpreters from `indexURL` with the harness's `sources` (`harnessSources`); returns them with `handle`, a
 * function from a request's JSON text to its verdict's. With `snapshots` (`{judge, candidate}`,
 * each `{snapshot, fsInit?}`: the bytes of an earlier pair's `snapshot()` or their promise, and
 * Pyodide's hook before it restores them), each interpreter is restored from its memory snapshot
 * instead of started and made to import the harness: Pyodide's `_loadSnapshot`. With
 * `snapshottable`, the pair is loaded so that `snapshot()` can take one (Pyodide's `_makeSnapshot`).
 */
export async function loadPair(loadPyodide, indexURL, sources, { snapshots, snapshottable = false } = {}) {
  const load = (restore) =>
    loadPyodide(restore ? { indexURL, _loadSnapshot: restore.snapshot, fsInit: restore.fsInit } : { indexURL, _makeSnapshot: snapshottable });
  const [judge, candidate] = await Promise.all([load(snapshots?.judge), load(snapshots?.candidate)]);
  for (const pyodide of [judge, candidate]) {
    // Files live outside the snapshot's memory: the harness's sources are written again for its
    // tracebacks. A restored interpreter's `random` would continue the snapshot's stream, the same
    // in every restore: it is reseeded from the browser's entropy (Pyodide's docs warn of this).
    pyodide.FS.mkdirTree('/home/pyodide/harness');
    for (const [name, text] of Object.entries(sources)) pyodide.FS.writeFile(`/home/pyodide/harness/${name}.py`, text);
    pyodide.runPython(snapshots ? 'import random; random.seed()' : 'import sys; sys.path.insert(0, "/home/pyodide"); import harness');
  }
  let serve;
  let judgeRequest;
  const connect = () => {
    serve = candidate.runPython('import harness\nharness.candidate_server(interrupts=True)');
    judgeRequest = judge.runPython(
      'import json, harness\n(lambda request, exchange: harness.reply(harness.handle(json.loads(request), harness.bridge(exchange))))',
    );
  };
  connect();
  const exchange = (question) => serve(question);
  return {
    judge,
    candidate,
    handle: (request) => judgeRequest(request, exchange),
    /**
     * Both interpreters' memory as it is now, for later pairs to be restored from: `each(name,
     * bytes)` gets the judge's, then the candidate's, as each is taken. A snapshot holds no
     * reference to a JavaScript object, so the pair lets go of its functions (and Python of what it
     * kept from earlier calls) first, then connects again.
     */
    snapshot(each) {
      serve.destroy();
      judgeRequest.destroy();
      try {
        for (const [name, pyodide] of Object.entries({ judge, candidate })) {
          pyodide.runPython('import gc; gc.collect()');
          each(name, pyodide.makeMemorySnapshot());
        }
      } finally {
        connect();
      }
    },
  };
}
