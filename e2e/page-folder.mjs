// Where the page that the end-to-end tests drive is built: scripts/test builds it there with
// `trunk build --dist` (scripts/lib.sh's TEST_PAGE_DIR), apart from dist/, which `trunk serve` writes.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
export const pageFolder = path.join(root, process.env.TEST_PAGE_DIR ?? 'build/test-page');
