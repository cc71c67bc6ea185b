/**
 * `npm run build:production` (PRODUCTION_BUILD=1) builds the site for the hosted project only: a
 * missing Supabase variable stops it before anything is written, naming the variable, and a build
 * with the project's values talks to that project and never to this machine.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LOCAL_ANON_KEY, LOCAL_SUPABASE_URL } from "../../src/lib/supabase-url.ts";
import { copyProject } from "../support/project-copy.ts";

const PROJECT = "https://abcdefghijklmnopqrst.supabase.co";
// The project's publishable key, as DEPLOY.md builds with it.
const PUBLISHABLE_KEY = "sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH";
// A token shaped like a hosted project's anon key (the build reads its role; the API checks the rest).
const ANON_KEY = [
  Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url"),
  Buffer.from(JSON.stringify({ iss: "supabase", ref: "abcdefghijklmnopqrst", role: "anon", iat: 1790000000 })).toString(
    "base64url",
  ),
  "c2lnbmF0dXJl",
].join(".");

/** This process's environment without the project's variables: only what each case sets. */
function env(set: Record<string, string>) {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(PUBLIC_SUPABASE_|SITE_URL$|EMBED_|VITEST)/.test(name)),
  );
  return { ...base, PRODUCTION_BUILD: "1", ...set };
}

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
  );

const copy = copyProject();
afterAll(() => copy.remove());

describe("npm run build:production", () => {
  it("is the production build of package.json", () => {
    const scripts = (
      JSON.parse(readFileSync(join(copy.dir, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts["build:production"]).toBe("PRODUCTION_BUILD=1 astro build");
  });

  it("stops before writing anything when a Supabase variable is missing, naming it", async () => {
    const noUrl = await copy.astro(["build", "--outDir", "no-url"], env({ PUBLIC_SUPABASE_ANON_KEY: ANON_KEY }));
    expect(noUrl.failed).toBe(true);
    expect(noUrl.output).toContain("PUBLIC_SUPABASE_URL must be set for a production build");
    const noKey = await copy.astro(["build", "--outDir", "no-key"], env({ PUBLIC_SUPABASE_URL: PROJECT }));
    expect(noKey.failed).toBe(true);
    expect(noKey.output).toContain("PUBLIC_SUPABASE_ANON_KEY must be set for a production build");
    expect(existsSync(join(copy.dir, "no-url"))).toBe(false);
    expect(existsSync(join(copy.dir, "no-key"))).toBe(false);
  }, 60_000);

  it("refuses a secret key, which must never reach a browser, before writing anything", async () => {
    const secret = await copy.astro(
      ["build", "--outDir", "secret"],
      env({ PUBLIC_SUPABASE_URL: PROJECT, PUBLIC_SUPABASE_ANON_KEY: "sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz" }),
    );
    expect(secret.failed).toBe(true);
    expect(secret.output).toContain("PUBLIC_SUPABASE_ANON_KEY is a secret key");
    expect(existsSync(join(copy.dir, "secret"))).toBe(false);
  }, 60_000);

  it("builds a site that talks to the hosted project and never to this machine", async () => {
    const result = await copy.astro(
      ["build", "--outDir", "site"],
      env({ PUBLIC_SUPABASE_URL: PROJECT, PUBLIC_SUPABASE_ANON_KEY: PUBLISHABLE_KEY }),
    );
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
    expect(text).not.toContain(LOCAL_SUPABASE_URL);
    expect(text).not.toContain(LOCAL_ANON_KEY);
    expect(headers).not.toMatch(/localhost|127\.0\.0\.1/);
  }, 180_000);
});
