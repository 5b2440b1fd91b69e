// The harness's two interpreters in one realm (static/python/harness.py, "Two interpreters"): the
// judge, which runs the tests, and the candidate, which runs the program and never sees a test. The
// judge asks the candidate its questions through `exchange`, a plain function of JSON text, so
// neither holds a reference to the other's Python objects. Used by the worker and by the tests
// that run the harness in Node.

/**
 * Loads both interpreters from `indexURL` with the harness `source`; returns them with `handle`, a
 * function from a request's JSON text to its verdict's.
 */
export async function loadPair(loadPyodide, indexURL, source) {
  const [judge, candidate] = await Promise.all([loadPyodide({ indexURL }), loadPyodide({ indexURL })]);
  for (const pyodide of [judge, candidate]) {
    pyodide.FS.writeFile('/home/pyodide/harness.py', source);
    pyodide.runPython('import sys; sys.path.insert(0, "/home/pyodide"); import harness');
  }
  const serve = candidate.runPython('import harness\nharness.candidate_server(interrupts=True)');
  const exchange = (question) => serve(question);
  const judgeRequest = judge.runPython(
    'import json, harness\n(lambda request, exchange: json.dumps(harness.handle(json.loads(request), harness.bridge(exchange))))',
  );
  return { judge, candidate, handle: (request) => judgeRequest(request, exchange) };
}
