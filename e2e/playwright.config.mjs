// Drives the built page (made by scripts/test's `trunk build` into its own folder, see
// page-folder.mjs) in Debian's Chromium; no browser download.
// The page is served as it should be hosted (cross-origin isolated, scripts/serve-dist.py), and a
// second time without the isolation headers, to test the fallbacks of a plain static host.
import { defineConfig } from '@playwright/test';
import { pageFolder } from './page-folder.mjs';

const port = 8765;
const plainPort = 8766;
const serve = (port, flags = '') =>
  ({
    command: `python3 ../scripts/serve-dist.py --port ${port} --directory ${pageFolder} ${flags}`,
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    stderr: 'ignore',
  });

export default defineConfig({
  testDir: '.',
  outputDir: './test-results',
  timeout: 120_000,
  retries: 0,
  workers: 1,
  reporter: [['list']],
  webServer: [
    serve(port),
    serve(plainPort, '--no-isolation'),
    { command: 'node llm-stub.mjs', url: 'http://127.0.0.1:8790/', reuseExistingServer: false, env: { PORT: '8790' } },
  ],
  use: {
    baseURL: `http://127.0.0.1:${port}/`,
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ],
    },
  },
});
