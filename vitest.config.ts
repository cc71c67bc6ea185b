/// <reference types="vitest/config" />
import { availableParallelism } from "node:os";
import { getViteConfig } from "astro/config";
import LongestFirst from "./tests/support/longest-first.ts";

/**
 * The product's tests (tests/) and the packages' own, all run by `npm test` (`vitest run`), each a
 * project (`--project <name>`):
 * - unit: the product's pure logic and content, no database (seconds);
 * - integration: the product through the local stack, with real supabase-js on PGlite and
 *   PostgreSQL: row level security, the functions, the webhook, the Security Advisor, faults;
 * - tooling: the build's steps, the bench's analysis, the docs and CI against the code;
 * - local-stack-unit, local-stack: the stand-ins' fidelity to the services they stand in for
 *   (packages/local-stack/tests/, without and with a database; `npm run test:local-stack`);
 * - static-host: the static server against the CDN's rules (packages/static-host/tests/).
 */
export default getViteConfig({
  test: {
    environment: "node",
    testTimeout: 20_000,
    // One file per core. Vitest's default leaves a core free (one worker on a 2-core machine), but
    // most files spend their time waiting on the stack's servers, Postgres and child processes, not
    // on the CPU: two workers on 2 cores run the suite in 256 s instead of 413 s.
    maxWorkers: availableParallelism(),
    // The longest files first, across projects, so no worker is left with a long file at the end
    // (tests/support/longest-first.ts).
    sequence: { sequencer: LongestFirst },
    // The default output, a table of the hostile tries the tests made (tests/support/hostile.ts), and
    // the slowest files.
    reporters: ["default", "./tests/support/hostile-reporter.ts", "./tests/support/slowest-reporter.ts"],
    projects: [
      { extends: true, test: { name: "unit", include: ["tests/unit/**/*.test.ts", "src/**/*.test.ts"] } },
      { extends: true, test: { name: "integration", include: ["tests/integration/**/*.test.ts"] } },
      { extends: true, test: { name: "tooling", include: ["tests/tooling/**/*.test.ts"] } },
      { extends: true, test: { name: "local-stack-unit", include: ["packages/local-stack/tests/unit/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "local-stack", include: ["packages/local-stack/tests/integration/**/*.test.ts"] },
      },
      { extends: true, test: { name: "static-host", include: ["packages/static-host/tests/**/*.test.ts"] } },
    ],
  },
});
