/// <reference types="vitest/config" />
import { getViteConfig } from "astro/config";

/**
 * Three projects, all run by `npm test` (`vitest run`):
 * - unit: the product's pure logic and content, no database (seconds): `--project unit`;
 * - integration: the local stack with real supabase-js on PGlite and PostgreSQL, row level security;
 * - tooling: the bench's analysis and the static file server, apart from the product's tests.
 */
export default getViteConfig({
  test: {
    environment: "node",
    testTimeout: 20_000,
    projects: [
      { extends: true, test: { name: "unit", include: ["tests/unit/**/*.test.ts", "src/**/*.test.ts"] } },
      { extends: true, test: { name: "integration", include: ["tests/integration/**/*.test.ts"] } },
      { extends: true, test: { name: "tooling", include: ["tests/tooling/**/*.test.ts"] } },
    ],
  },
});
