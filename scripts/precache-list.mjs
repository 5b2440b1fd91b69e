// Trunk post-build hook: writes into the staged sw.js the list of every file of the build and a
// version hashed from their contents and the commit, and the headers the page should be hosted with
// (static/headers.json; see static/sw.js); writes those headers as _headers, the file of hosts such
// as Netlify and Cloudflare Pages; and names the build in the staged index.html (the About section
// shows it, so that a bug report can name the build).
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
// The WebGPU worker (4 MB of gzip wasm) is cached when a run first needs it, not on every install;
// so is the in-tab LLM's library (10 MB), when a user first picks that provider, and the small code
// model (7 MB), when a user first trains it.
const onDemand = (url) => url.startsWith('./webgpu_worker') || url.startsWith('./wllama/') || url.startsWith('./models/');
const list = {
  version: hash.digest('hex').slice(0, 16),
  files: ['./', ...urls.filter((url) => !onDemand(url))],
  onDemand: urls.filter(onDemand),
};
const html = path.join(staging, 'index.html');
const meta = `<meta name="rlcg-commit" content="${described}" /><meta name="rlcg-content" content="${list.version}" />`;
await writeFile(html, (await readFile(html, 'utf8')).replace('<head>', `<head>${meta}`));
const headers = JSON.parse(await readFile(new URL('../static/headers.json', import.meta.url), 'utf8'));
const headerLines = (block) => Object.entries(block).map(([name, value]) => `  ${name}: ${value}`);
await writeFile(path.join(staging, '_headers'), [
  '/*', ...headerLines(headers.everywhere), '/python/*', ...headerLines(headers.pythonWorker), '',
].join('\n'));
let source = await readFile(worker, 'utf8');
for (const [placeholder, value] of [
  ["/*PRECACHE*/ { version: 'unbuilt', files: [] }", list],
  ['/*HEADERS*/ { everywhere: {}, pythonWorker: {} }', { everywhere: headers.everywhere, pythonWorker: headers.pythonWorker }],
]) {
  if (!source.includes(placeholder)) throw new Error(`sw.js has no placeholder ${placeholder}`);
  source = source.replace(placeholder, () => JSON.stringify(value));
}
await writeFile(worker, source);
console.log(`sw.js: ${list.files.length} files precached, ${list.onDemand.length} cached on demand, as version ${list.version}; commit ${described}`);
