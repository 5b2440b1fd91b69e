// Copies Pyodide's runtime files from the npm package into build/pyodide/ (served with the page, no
// CDN) and replaces its standard library zip with one precompiled to bytecode inside Pyodide itself:
// loading then skips compiling the stdlib from source, which is most of Pyodide's start-up time.
// The pure-Python modules of a second folder (build/python-lib: autopep8, pycodestyle) join the
// standard library, precompiled the same way, with their licences.
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const packageDir = path.dirname(require.resolve('pyodide/package.json'));
const { version } = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8'));
const outDir = path.resolve(process.argv[2] ?? 'build/pyodide');
const libDir = path.resolve(process.argv[3] ?? 'build/python-lib');
const runtimeFiles = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'pyodide-lock.json'];

await mkdir(outDir, { recursive: true });
for (const file of runtimeFiles) await copyFile(path.join(packageDir, file), path.join(outDir, file));

const { loadPyodide } = await import(path.join(packageDir, 'pyodide.mjs'));
const pyodide = await loadPyodide({ indexURL: packageDir + '/' });
// The extra modules (top-level .py files) and their dist-info folders go to /extra in Pyodide's FS.
pyodide.FS.mkdirTree('/extra');
for (const entry of await readdir(libDir, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.startsWith('.')) continue;
  const relative = path.relative(libDir, path.join(entry.parentPath ?? entry.path, entry.name));
  pyodide.FS.mkdirTree(path.posix.dirname(path.posix.join('/extra', relative)));
  pyodide.FS.writeFile(path.posix.join('/extra', relative), await readFile(path.join(libDir, relative)));
}
const stats = pyodide.runPython(`
import importlib._bootstrap_external as bootstrap
import importlib.util
import os
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
    for root, _, files in os.walk("/extra"):
        for name in files:
            member = os.path.relpath(os.path.join(root, name), "/extra")
            with open(os.path.join(root, name), "rb") as f:
                data = f.read()
            if not name.endswith(".py") or "/" in member:
                out.writestr(member, data)
                continue
            code = compile(data, f"{source_zip}/{member}", "exec", dont_inherit=True)
            pyc = bootstrap._code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False)
            out.writestr(member[:-3] + ".pyc", bytes(pyc))
            compiled += 1
compiled
`);
await writeFile(path.join(outDir, 'python_stdlib.zip'), pyodide.FS.readFile('/tmp/stdlib.zip'));
await writeFile(path.join(outDir, 'VERSION'), `${version}\n`);
console.log(`pyodide ${version}: ${stats} stdlib modules precompiled into ${outDir}`);
