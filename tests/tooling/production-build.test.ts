/**
 * `npm run build` builds the site for the hosted project only, whoever runs it (a host's default
 * build command included): a missing Supabase variable, or the local stack's address or key, stops
 * it before anything is written, naming each variable; a build with the project's values talks to
 * that project and never to this machine. Only the local stack builds for itself, saying so
 * (packages/local-stack/src/site.ts). Nor does it publish sample content (src/integrations/
 * sample-content.ts): it names every item and stops, unless a staging build says
 * ALLOW_SAMPLE_CONTENT=1; with the samples replaced or deleted it builds, their sections left out.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { rmSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { findSamples, sampleLines } from "../../src/integrations/sample-content.ts";
import { siteBuildEnv } from "@advisor-accelerator/local-stack";
import { EXAMPLE_PROJECT } from "../support/example-project.ts";
import { astroTimeout, copyProject } from "../support/project-copy.ts";

// The project's URL and its publishable key, as DEPLOY.md builds with them.
const { PUBLIC_SUPABASE_URL: PROJECT, PUBLIC_SUPABASE_ANON_KEY: PUBLISHABLE_KEY } = EXAMPLE_PROJECT;
// A token shaped like a hosted project's anon key (the build reads its role; the API checks the rest).
const ANON_KEY = [
  Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url"),
  Buffer.from(JSON.stringify({ iss: "supabase", ref: "abcdefghijklmnopqrst", role: "anon", iat: 1790000000 })).toString(
    "base64url",
  ),
  "c2lnbmF0dXJl",
].join(".");

/** What `npm start` builds with (the stack's address and key, and LOCAL_STACK_BUILD=1). */
const LOCAL = siteBuildEnv("http://localhost:4321");

/** This process's environment without the project's variables: only what each case sets. */
function env(set: Record<string, string>) {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(PUBLIC_SUPABASE_|LOCAL_STACK_BUILD$|ALLOW_SAMPLE_CONTENT$|SITE_URL$|EMBED_|VITEST)/.test(name),
    ),
  );
  return { ...base, ...set };
}

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
  );

const copy = copyProject();
afterAll(() => copy.remove());
/** The hosted project's values, as DEPLOY.md builds with them. */
const HOSTED = { PUBLIC_SUPABASE_URL: PROJECT, PUBLIC_SUPABASE_ANON_KEY: PUBLISHABLE_KEY };

// Each test runs astro at most twice.
describe("npm run build", { timeout: astroTimeout(2) }, () => {
  it("is the production build of package.json, and the only one", () => {
    const scripts = (
      JSON.parse(readFileSync(join(copy.dir, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.build).toBe("astro build");
    expect(Object.keys(scripts).filter((name) => name.startsWith("build"))).toEqual(["build"]);
  });

  it("stops before writing anything when a Supabase variable is missing, naming each", async () => {
    const none = await copy.astro(["build", "--outDir", "none"], env({}));
    expect(none.failed).toBe(true);
    expect(none.output).toContain("PUBLIC_SUPABASE_URL must be set to the hosted project's URL");
    expect(none.output).toContain("PUBLIC_SUPABASE_ANON_KEY must be set to the hosted project's publishable key");
    // A hosted project's legacy anon key passes; only the missing URL is named.
    const noUrl = await copy.astro(["build", "--outDir", "no-url"], env({ PUBLIC_SUPABASE_ANON_KEY: ANON_KEY }));
    expect(noUrl.failed).toBe(true);
    expect(noUrl.output).toContain("PUBLIC_SUPABASE_URL must be set");
    expect(noUrl.output).not.toContain("PUBLIC_SUPABASE_ANON_KEY");
    expect(existsSync(join(copy.dir, "none"))).toBe(false);
    expect(existsSync(join(copy.dir, "no-url"))).toBe(false);
  });

  it("refuses the local stack's address and key, naming each, unless the local stack builds", async () => {
    const { LOCAL_STACK_BUILD, ...values } = LOCAL;
    expect(LOCAL_STACK_BUILD).toBe("1");
    const local = await copy.astro(["build", "--outDir", "local"], env(values));
    expect(local.failed).toBe(true);
    expect(local.output).toContain(
      `PUBLIC_SUPABASE_URL must be the hosted project's https URL, not "${values.PUBLIC_SUPABASE_URL}"`,
    );
    expect(local.output).toContain("PUBLIC_SUPABASE_ANON_KEY is the local stack's key");
    expect(local.output).toContain("`npm start` builds it for the local stack");
    // The local stack's own build has no defaults either: it passes its values.
    const bare = await copy.astro(["build", "--outDir", "bare"], env({ LOCAL_STACK_BUILD }));
    expect(bare.failed).toBe(true);
    expect(bare.output).toContain("PUBLIC_SUPABASE_URL must be set: the local stack passes its own address");
    expect(bare.output).toContain("PUBLIC_SUPABASE_ANON_KEY must be set: the local stack passes its own key");
    expect(existsSync(join(copy.dir, "local"))).toBe(false);
    expect(existsSync(join(copy.dir, "bare"))).toBe(false);
  });

  it("refuses a secret key, which must never reach a browser, before writing anything", async () => {
    const secret = await copy.astro(
      ["build", "--outDir", "secret"],
      env({ PUBLIC_SUPABASE_URL: PROJECT, PUBLIC_SUPABASE_ANON_KEY: "sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz" }),
    );
    expect(secret.failed).toBe(true);
    expect(secret.output).toContain("PUBLIC_SUPABASE_ANON_KEY is a secret key");
    expect(existsSync(join(copy.dir, "secret"))).toBe(false);
  });

  it("stops before writing anything while content has sample items, naming each by file and field, and what to do", async () => {
    const items = findSamples(copy.dir);
    expect(items.length).toBeGreaterThan(0);
    const result = await copy.astro(["build", "--outDir", "samples"], env(HOSTED));
    expect(result.failed).toBe(true);
    expect(result.output).toContain(`This build would publish ${items.length} sample items`);
    for (const line of sampleLines(items)) expect(result.output).toContain(`  - ${line}`);
    expect(result.output).toContain("delete its `sample: true` line, or delete the entry");
    expect(result.output).toContain("ALLOW_SAMPLE_CONTENT=1");
    // Only the process's environment lets samples through, never a file in the checkout.
    writeFileSync(join(copy.dir, ".env"), "ALLOW_SAMPLE_CONTENT=1\n");
    try {
      expect((await copy.astro(["build", "--outDir", "samples"], env(HOSTED))).failed).toBe(true);
    } finally {
      rmSync(join(copy.dir, ".env"));
    }
    expect(existsSync(join(copy.dir, "samples"))).toBe(false);
  });

  it("builds a site that talks to the hosted project and never to this machine (a staging build: samples allowed, labelled)", async () => {
    const result = await copy.astro(["build", "--outDir", "site"], env({ ...HOSTED, ALLOW_SAMPLE_CONTENT: "1" }));
    expect(result.failed, result.output).toBe(false);
    const out = join(copy.dir, "site");
    const headers = readFileSync(join(out, "_headers"), "utf8");
    expect(headers).toMatch(new RegExp(`connect-src [^;]*${PROJECT.replace(/\./g, "\\.")}`));
    const text = files(out)
      .filter((file) => /\.(html|js|css|txt|xml|json|_headers|_redirects)$/.test(file) || file.endsWith("_headers"))
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    expect(text).toContain(PUBLISHABLE_KEY);
    // The local stack's address and key appear nowhere (supabase-js's own code names localhost for
    // its defaults, so the check is for the stack's values), and the policy allows no local origin.
    expect(text).not.toContain(LOCAL.PUBLIC_SUPABASE_URL);
    expect(text).not.toContain(LOCAL.PUBLIC_SUPABASE_ANON_KEY);
    expect(headers).not.toMatch(/localhost|127\.0\.0\.1/);
    // The samples it publishes are labelled, as on the local stack (tests/e2e/truth.spec.ts checks each).
    const home = readFileSync(join(out, "index.html"), "utf8");
    expect(home.match(/>Sample<span class="sr-only"> content<\/span>/g)?.length ?? 0).toBeGreaterThan(0);
  });

  it("builds without ALLOW_SAMPLE_CONTENT once every sample is replaced or deleted; a section left with no entries is left out", async () => {
    const real = copyProject();
    try {
      const content = join(real.dir, "content");
      // Deleted: every coach, testimonial, endorsement, statistic and payoff figure.
      for (const dir of ["coaches", "testimonials"]) {
        for (const file of readdirSync(join(content, dir))) rmSync(join(content, dir, file));
      }
      for (const file of ["endorsements.yaml", "stats.yaml", "success-metrics.yaml"]) {
        writeFileSync(join(content, file), "# None yet.\n");
      }
      const os = join(content, "pages/advisor-os.mdx");
      const page = readFileSync(os, "utf8");
      writeFileSync(os, page.replace(/( {4}items:\n)(?: {6}- label:[\s\S]*?)(?=\n {2}videos:)/, "    items: []"));
      // Replaced: what is left (the contact, the cohort days, the chart's source, the lesson videos).
      for (const item of findSamples(real.dir)) {
        const file = join(real.dir, item.file);
        writeFileSync(file, readFileSync(file, "utf8").replace(/^\s*sample: true\n/m, ""));
      }
      expect(findSamples(real.dir)).toEqual([]);
      const result = await real.astro(["build", "--outDir", "site"], env(HOSTED));
      expect(result.failed, result.output).toBe(false);
      const html = (path: string) => readFileSync(join(real.dir, "site", path), "utf8");
      const pages = files(join(real.dir, "site")).filter((file) => file.endsWith(".html"));
      for (const file of pages) expect(readFileSync(file, "utf8"), file).not.toContain("Sample<span");
      expect(html("index.html")).not.toMatch(/Meet your coaches|What industry leaders say|Trusted by|stats-heading/);
      expect(html("transformation.html")).not.toMatch(/Success Stories|coaches-ai-advisor-accelerator-heading/);
      expect(html("programs.html")).not.toContain("metrics-heading");
      expect(html("advisor-os.html")).not.toContain("payoff-heading");
      expect(html("programs/growth-mindset.html")).toContain("Growth Mindset Mastery");
    } finally {
      real.remove();
    }
  });
});
