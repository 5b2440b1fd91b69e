// Copies Pyodide's runtime files from the npm package into build/pyodide/ (served with the page, no
// CDN) and replaces its standard library zip with one precompiled to bytecode inside Pyodide itself:
// loading then skips compiling the stdlib from source, which is most of Pyodide's start-up time.
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const packageDir = path.dirname(require.resolve('pyodide/package.json'));
const { version } = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8'));
const outDir = path.resolve(process.argv[2] ?? 'build/pyodide');
const runtimeFiles = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'pyodide-lock.json'];

await mkdir(outDir, { recursive: true });
for (const file of runtimeFiles) await copyFile(path.join(packageDir, file), path.join(outDir, file));

const { loadPyodide } = await import(path.join(packageDir, 'pyodide.mjs'));
const pyodide = await loadPyodide({ indexURL: packageDir + '/' });
const stats = pyodide.runPython(`
import importlib._bootstrap_external as bootstrap
import importlib.util
import sys
import zipfile

source_zip = f"/lib/python{sys.version_info.major}{sys.version_info.minor}.zip"
compiled = 0
with zipfile.ZipFile(source_zip) as source, zipfile.ZipFile("/tmp/stdlib.zip", "w", zipfile.ZIP_DEFLATED) as out:
    for entry in source.infolist():
        data = source.read(entry)
        if not entry.filename.endswith(".py"):
            out.writestr(entry.filename, data)
            continue
        # zipimport prefers a module's .pyc; unchecked hash-based pycs are never compared with a source.
        code = compile(data, f"{source_zip}/{entry.filename}", "exec", dont_inherit=True)
        pyc = bootstrap._code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False)
        out.writestr(entry.filename[:-3] + ".pyc", bytes(pyc))
        compiled += 1
compiled
`);
await writeFile(path.join(outDir, 'python_stdlib.zip'), pyodide.FS.readFile('/tmp/stdlib.zip'));
await writeFile(path.join(outDir, 'VERSION'), `${version}\n`);
console.log(`pyodide ${version}: ${stats} stdlib modules precompiled into ${outDir}`);
