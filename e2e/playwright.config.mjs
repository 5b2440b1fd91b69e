// Drives the built page (dist/, made by `trunk build`) in Debian's Chromium; no browser download.
import { defineConfig } from '@playwright/test';

const port = 8765;

export default defineConfig({
  testDir: '.',
  outputDir: './test-results',
  timeout: 120_000,
  retries: 0,
  workers: 1,
  reporter: [['list']],
  webServer: {
    command: `python3 -m http.server ${port} --bind 127.0.0.1 --directory ../dist`,
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    stderr: 'ignore',
  },
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
