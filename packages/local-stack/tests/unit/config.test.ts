/** The local stack's settings come from supabase/config.toml and nowhere else (packages/local-stack/src/config.ts). */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_FILE, loadConfig, parseDuration, parseSize } from "../../src/config.ts";

/** A project folder with its own supabase/config.toml (and the recovery template it names). */
function project(toml: string) {
  const dir = mkdtempSync(join(tmpdir(), "config-"));
  mkdirSync(join(dir, "supabase", "templates"), { recursive: true });
  writeFileSync(join(dir, "supabase", "templates", "recovery.html"), "<a href='{{ .ConfirmationURL }}'>x</a>");
  writeFileSync(join(dir, "supabase", "config.toml"), toml);
  return join(dir, "supabase", "config.toml");
}

describe("supabase/config.toml", () => {
  it("gives the stack the project's settings", () => {
    const config = loadConfig("http://localhost:4321");
    const toml = readFileSync(CONFIG_FILE, "utf8");
    const value = (key: string) => new RegExp(`^${key}\\s*=\\s*(.+)$`, "m").exec(toml)![1]!.trim();
    expect(config.auth.jwtExpiry).toBe(Number(value("jwt_expiry")));
    expect(config.api.maxRows).toBe(Number(value("max_rows")));
    expect(config.auth.siteUrl).toBe(JSON.parse(value("site_url")));
    expect(config.auth.rateLimit.tokenRefresh).toBe(Number(value("token_refresh")));
    expect(config.auth.email.maxFrequency).toBe(60);
    expect(config.storage.fileSizeLimit).toBe(50 * 1024 * 1024);
    expect(config.auth.email.templates.recovery).toMatchObject({
      subject: "Reset your Advisor Accelerator password",
      contentPath: "./supabase/templates/recovery.html",
    });
    expect(config.auth.email.templates.recovery!.content).toContain("{{ .TokenHash }}");
  });

  it("reads each function's verify_jwt, true unless the project says otherwise", () => {
    const file = project(
      `[auth]\nsite_url = "http://localhost:4321"\n[functions.stripe-webhook]\nverify_jwt = false\n[functions.stripe-checkout]\n`,
    );
    const { functions } = loadConfig("http://x", {}, file);
    expect(functions["stripe-webhook"]!.verifyJwt).toBe(false);
    expect(functions["stripe-checkout"]!.verifyJwt).toBe(true);
  });

  it("finds each function's entry as the Supabase CLI does: from config.toml's folder, supabase/functions/<name>/index.ts by default", () => {
    // supabase/cli pkg/config/config.go, "Resolve functions config": a relative entrypoint is joined to
    // the supabase/ folder; the import map is the deno.json beside the entrypoint, if there is one.
    const file = project(
      `[auth]\nsite_url = "http://a"\n[functions.moved]\nentrypoint = "../functions/moved/index.ts"\n[functions.plain]\n`,
    );
    const dir = join(file, "..", "..");
    mkdirSync(join(dir, "functions", "moved"), { recursive: true });
    writeFileSync(join(dir, "functions", "moved", "deno.json"), "{}");
    const { functions } = loadConfig("http://x", {}, file);
    expect(functions.moved).toEqual({
      verifyJwt: true,
      entrypoint: join(dir, "functions", "moved", "index.ts"),
      importMap: join(dir, "functions", "moved", "deno.json"),
    });
    expect(functions.plain).toEqual({
      verifyJwt: true,
      entrypoint: join(dir, "supabase", "functions", "plain", "index.ts"),
    });
  });

  it("deploys every function in functions/ from its own Deno entry and import map, neither with the gateway's JWT check", () => {
    const root = join(CONFIG_FILE, "..", "..");
    const { functions } = loadConfig("http://x");
    const folders = readdirSync(join(root, "functions")).filter((name) =>
      existsSync(join(root, "functions", name, "index.ts")),
    );
    expect(Object.keys(functions).sort()).toEqual(folders.sort());
    for (const name of folders) {
      expect(functions[name]).toMatchObject({
        entrypoint: join(root, "functions", name, "index.ts"),
        importMap: join(root, "functions", name, "deno.json"),
      });
    }
    // Stripe sends no Supabase JWT; visitors call the checkout with the project's public key,
    // which need not be one (a publishable key is not).
    expect(functions["stripe-webhook"]!.verifyJwt).toBe(false);
    expect(functions["stripe-checkout"]!.verifyJwt).toBe(false);
  });

  it("lets a test change one value and keeps the rest", () => {
    const config = loadConfig("http://localhost:9", { auth: { jwtExpiry: 60, rateLimit: { tokenRefresh: 5 } } });
    expect(config.auth.jwtExpiry).toBe(60);
    expect(config.auth.rateLimit.tokenRefresh).toBe(5);
    expect(config.auth.rateLimit.signInSignUps).toBe(loadConfig("http://x").auth.rateLimit.signInSignUps);
    expect(config.url).toBe("http://localhost:9");
  });

  it("fails with the key's name when a value has the wrong type or a template is missing", () => {
    expect(() =>
      loadConfig("http://x", {}, project(`[auth]\nsite_url = "http://a"\njwt_expiry = "an hour"\n`)),
    ).toThrow(/auth\.jwt_expiry must be a whole number/);
    expect(() => loadConfig("http://x", {}, project(`[auth]\njwt_expiry = 10\n`))).toThrow(
      /auth\.site_url must be set/,
    );
    expect(() =>
      loadConfig("http://x", {}, project(`[auth]\nsite_url = "http://a"\n[auth.email]\nmax_frequency = "soon"\n`)),
    ).toThrow(/auth\.email\.max_frequency must be a duration/);
    const missing = `[auth]\nsite_url = "http://a"\n[auth.email.template.recovery]\nsubject = "x"\ncontent_path = "./supabase/templates/nope.html"\n`;
    expect(() => loadConfig("http://x", {}, project(missing))).toThrow(
      /content_path names \.\/supabase\/templates\/nope\.html/,
    );
  });

  it("reads Go durations and binary sizes as the Supabase CLI does", () => {
    expect(parseDuration("1m0s")).toBe(60);
    expect(parseDuration("1h30m")).toBe(5400);
    expect(parseDuration("500ms")).toBe(0.5);
    expect(parseDuration("60")).toBeUndefined();
    expect(parseSize("2MiB")).toBe(2 * 1024 * 1024);
    expect(parseSize("50MB")).toBe(50 * 1024 * 1024);
    expect(parseSize("512KB")).toBe(512 * 1024);
    expect(parseSize("big")).toBeUndefined();
  });
});
