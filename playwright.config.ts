import { tmpdir } from "node:os";
import { join } from "node:path";
import { START_SCRIPT } from "@advisor-accelerator/local-stack";
import { defineConfig, devices } from "@playwright/test";
import { findTestBrowser } from "./scripts/ensure-chromium.ts";
import { TEST_BUILD } from "./tests/support/example-project.ts";

const port = Number(process.env.E2E_PORT ?? 4399);
const productionDir = join(tmpdir(), `advisor-e2e-production-${port}`);
const executablePath = findTestBrowser() ?? undefined;

/** End-to-end tests in the system's Chromium against the production build, served as the CDN serves it. */
export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  // The HTML report (playwright-report/) in CI too: the GitHub workflow uploads it when a test fails.
  // The list, an HTML report, a table of the hostile tries the tests made (tests/support/hostile.ts),
  // and at the end the spec files that took longest (where `npm test`'s time goes).
  reporter: [
    ["list"],
    ["html", { open: "never" }],
    ["./tests/e2e/hostile-reporter.ts"],
    ["./tests/e2e/slowest-reporter.ts"],
  ],
  timeout: 30_000,
  expect: { timeout: 5_000 },
  use: {
    baseURL: `http://localhost:${port}`,
    // A failed test keeps its trace (each action, the network, the console) and a screenshot of
    // the moment it failed. The trace's film and DOM snapshots are left out: recorded for every
    // test to keep the failed ones', they cost 15% of the suite's time on 2 cores (a11y and
    // checkout specs: 97 s with them, 82 s without, 77 s with no trace at all).
    trace: { mode: "retain-on-failure", screenshots: false, snapshots: false },
    screenshot: "only-on-failure",
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
      // stand-in) and the stack itself, from a fresh data folder. The port opens once the build is
      // done, so the tests never start on the previous run's site in the folder.
      command: `node ${START_SCRIPT} --build --port ${port} --dir ${join(tmpdir(), `advisor-e2e-site-${port}`)} --data ${join(tmpdir(), `advisor-e2e-${port}`)} --reset`,
      // Every buyer of the tests comes from 127.0.0.1: the functions' flood limits per address and
      // for everyone raised, those per e-mail kept (functions/_shared/rate-limit.ts;
      // tests/integration pins the production ones).
      env: { RATE_LIMIT_SCALE: "1000" },
      url: `http://localhost:${port}/`,
      reuseExistingServer: !process.env.CI,
      timeout: 300_000,
    },
    {
      // The production build (`npm run build`) as the CDN serves it: content/site.yaml as it is, for
      // a hosted project that does not exist (the build takes no other), built anew on each run,
      // as a staging build: its sample content published, labelled (TEST_BUILD).
      command: `npm run build -- --outDir ${productionDir} && node scripts/serve.ts --port ${port - 2} --dir ${productionDir}`,
      env: { ...TEST_BUILD, ASTRO_TELEMETRY_DISABLED: "1" },
      url: `http://localhost:${port - 2}/`,
      reuseExistingServer: !process.env.CI,
      timeout: 300_000,
    },
    {
      // The same site with every third-party embed configured (tests/e2e/embeds.spec.ts).
      command: `node tests/e2e/fixture-site.ts --port ${port - 1}`,
      url: `http://localhost:${port - 1}/`,
      reuseExistingServer: !process.env.CI,
      timeout: 120_000,
    },
  ],
});
