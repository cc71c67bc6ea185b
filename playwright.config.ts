import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { findChromium } from "./scripts/ensure-chromium.mjs";

const port = Number(process.env.E2E_PORT ?? 4399);
const executablePath = findChromium() ?? undefined;

/** End-to-end tests in the system's Chromium against the production build, served as the CDN serves it. */
export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  // The HTML report (playwright-report/) in CI too: the GitHub workflow uploads it when a test fails.
  reporter: [["list"], ["html", { open: "never" }]],
  timeout: 30_000,
  expect: { timeout: 5_000 },
  use: {
    baseURL: `http://localhost:${port}`,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
      ],
    },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"], channel: undefined } }],
  webServer: [
    {
      // What `npm start` runs: the site built for the local stack (its embeds on the scheduling
      // stand-in) and the stack itself, from a fresh data folder.
      command: `node local/start.ts --build --port ${port} --dir ${join(tmpdir(), `advisor-e2e-site-${port}`)} --data ${join(tmpdir(), `advisor-e2e-${port}`)} --reset`,
      url: `http://localhost:${port}/`,
      reuseExistingServer: !process.env.CI,
      timeout: 120_000,
    },
    {
      // The production build (`npm run build`, dist/) as the CDN serves it: content/site.yaml as it is.
      command: `node scripts/serve.mjs --port ${port - 2} --dir dist`,
      url: `http://localhost:${port - 2}/`,
      reuseExistingServer: !process.env.CI,
      timeout: 30_000,
    },
    {
      // The same site with every third-party embed configured (tests/e2e/embeds.spec.ts).
      command: `node tests/e2e/fixture-site.mjs --port ${port - 1}`,
      url: `http://localhost:${port - 1}/`,
      reuseExistingServer: !process.env.CI,
      timeout: 120_000,
    },
  ],
});
