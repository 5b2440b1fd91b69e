// Trunk post-build hook: writes into the staged sw.js the list of every file of the build and a
// version hashed from their contents and the commit (see static/sw.js), and names the build in the
// staged index.html (the About section shows it, so that a bug report can name the build).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) throw new Error('run by Trunk as a post_build hook (TRUNK_STAGING_DIR is not set)');
const worker = path.join(staging, 'sw.js');

async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)])));
  return nested.flat();
}

/** The commit the build comes from, as `git describe` names it; a build outside a clone has none. */
function commit() {
  try {
    const described = execFileSync('git', ['describe', '--always', '--dirty', '--tags'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return described.trim().replace(/[^\w.+-]/g, '') || 'unknown';
  } catch {
    return 'unknown';
  }
}

const files = (await filesUnder(staging)).filter((f) => f !== worker).sort();
const hash = createHash('sha256');
const described = commit();
hash.update(described);
for (const file of files) {
  hash.update(path.relative(staging, file));
  hash.update(await readFile(file));
}
const urls = files.map((f) => `./${path.relative(staging, f).split(path.sep).join('/')}`);
// The WebGPU worker (4 MB of gzip wasm) is cached when a run first needs it, not on every install.
const onDemand = (url) => url.startsWith('./webgpu_worker');
const list = {
  version: hash.digest('hex').slice(0, 16),
  files: ['./', ...urls.filter((url) => !onDemand(url))],
  onDemand: urls.filter(onDemand),
};
const html = path.join(staging, 'index.html');
const meta = `<meta name="rlcg-commit" content="${described}" /><meta name="rlcg-content" content="${list.version}" />`;
await writeFile(html, (await readFile(html, 'utf8')).replace('<head>', `<head>${meta}`));
const source = await readFile(worker, 'utf8');
const placeholder = "/*PRECACHE*/ { version: 'unbuilt', files: [] }";
if (!source.includes(placeholder)) throw new Error('sw.js has no precache placeholder');
await writeFile(worker, source.replace(placeholder, JSON.stringify(list)));
console.log(`sw.js: ${list.files.length} files precached, ${list.onDemand.length} cached on demand, as version ${list.version}; commit ${described}`);
