/**
 * DEPLOY.md against the code it deploys. An operator pastes its commands as written, so each one
 * that carries a fact of the code (the events the webhook handles, the Stripe API version of the
 * library, the functions' secrets, the functions themselves, the npm scripts, the production
 * block of supabase/config.toml) is checked against that code here: a change the guide does not
 * follow fails the tests, not the launch.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import Stripe from "stripe";
import { afterAll, describe, expect, it } from "vitest";
import { FUNCTION_ENV, type FunctionVariable } from "../../functions/_shared/env.ts";
import { ENV as STATUS_ENV } from "../../functions/checkout-status/handler.ts";
import { ENV as LEADS_ENV } from "../../functions/leads/handler.ts";
import { ENV as CHECKOUT_ENV } from "../../functions/stripe-checkout/handler.ts";
import { ENV as WEBHOOK_ENV } from "../../functions/stripe-webhook/handler.ts";
import { HANDLED_EVENTS } from "../../functions/stripe-webhook/process.ts";
import { CONFIG_FILE, loadConfig } from "@advisor-accelerator/local-stack";

const root = join(import.meta.dirname, "../..");
const guide = readFileSync(join(root, "DEPLOY.md"), "utf8");
const SITE = "https://advisoraccelerator.com";
const REF = "abcdefghijklmnopqrst";

/** Every command of the guide's sh blocks, with continued lines joined. */
const commands = [...guide.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((block) => block[1]!.replace(/\s*\\\n\s*/g, " ").split("\n"))
  .map((line) => line.replace(/\s+#.*$/, "").trim())
  .filter(Boolean);
const command = (start: string) => {
  const found = commands.filter((line) => line.includes(start));
  expect(found, `a command with "${start}"`).not.toHaveLength(0);
  return found;
};

/** Step 2's block, as `cat >> supabase/config.toml <<EOF` writes it with the shell's values. */
function productionBlock(): string {
  const heredoc = /cat >> supabase\/config\.toml <<EOF\n([\s\S]*?)\nEOF\n/.exec(guide);
  expect(heredoc, "step 2 appends a block to supabase/config.toml").not.toBeNull();
  return `\n${heredoc![1]!.replaceAll("$PROJECT_REF", REF).replaceAll("$SITE", SITE)}\n`;
}

const folders: string[] = [];
afterAll(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("DEPLOY.md", () => {
  it("gives production its own auth settings in a [remotes.production] block, with nothing local in it", () => {
    const toml = parse(readFileSync(CONFIG_FILE, "utf8") + productionBlock()) as {
      remotes: { production: { project_id: string; auth: Record<string, unknown> } };
    };
    const { project_id, auth } = toml.remotes.production;
    // The CLI refuses a remote whose project_id is not a project ref (supabase/cli pkg/config).
    expect(project_id).toMatch(/^[a-z]{20}$/);
    expect(auth.site_url).toBe(SITE);
    // Exact pages, no wildcard: a reset link may only go to this site's /reset-password.
    expect(auth.additional_redirect_urls).toEqual([`${SITE}/reset-password`]);
    expect(auth.email).toMatchObject({
      smtp: { enabled: true, host: "env(SMTP_HOST)", user: "env(SMTP_USER)", pass: "env(SMTP_PASS)" },
    });
    expect(JSON.stringify(toml.remotes)).not.toMatch(/localhost|127\.0\.0\.1|\*/);
  });

  it("leaves the local stack's settings as they were: only the CLI, linked to that project, applies the block", () => {
    const dir = mkdtempSync(join(tmpdir(), "deploy-"));
    folders.push(dir);
    cpSync(join(root, "supabase"), join(dir, "supabase"), { recursive: true });
    const file = join(dir, "supabase", "config.toml");
    const before = loadConfig("http://localhost:4321", {}, file);
    writeFileSync(file, readFileSync(file, "utf8") + productionBlock());
    const after = loadConfig("http://localhost:4321", {}, file);
    expect(after).toEqual(before);
    expect(after.auth.siteUrl).toBe("http://localhost:4321");
  });

  it("registers the webhook endpoint for exactly the events the webhook handles, in the library's API version", () => {
    const [create] = command("https://api.stripe.com/v1/webhook_endpoints");
    const events = [...create!.matchAll(/"enabled_events\[\]=([\w.]+)"/g)].map((m) => m[1]);
    expect(events.sort()).toEqual([...HANDLED_EVENTS].sort());
    // Stripe renders each event in the endpoint's API version: the shape the library's types describe.
    expect(/-d api_version=(\S+)/.exec(create!)?.[1]).toBe(Stripe.API_VERSION);
    expect(guide).toContain(`(${Stripe.API_VERSION};`);
    expect(create).toContain('url="https://$PROJECT_REF.supabase.co/functions/v1/stripe-webhook"');
  });

  it("sets every secret the functions need that the platform does not provide", () => {
    const platform: FunctionVariable[] = ["SUPABASE_URL", "SUPABASE_SERVICE_ROLE_KEY"];
    const needed = [
      ...new Set<FunctionVariable>([...CHECKOUT_ENV, ...STATUS_ENV, ...WEBHOOK_ENV, ...LEADS_ENV]),
    ].filter((name) => !platform.includes(name) && !("optional" in FUNCTION_ENV[name]));
    const [set] = command("npx supabase secrets set STRIPE_SECRET_KEY=rk_test_");
    const names = [...set!.matchAll(/\b([A-Z_]+)=/g)].map((m) => m[1]);
    expect(names.sort()).toEqual(needed.sort());
  });

  it("deploys every function supabase/config.toml declares", () => {
    const deploys = command("npx supabase functions deploy");
    const declared = Object.keys(loadConfig("http://x").functions).sort();
    for (const line of deploys) {
      expect(line.replace("npx supabase functions deploy", "").trim().split(/\s+/).sort()).toEqual(declared);
    }
  });

  it("builds the site with the hosted project's URL and public key, which the build requires", () => {
    const [build] = command("npm run build");
    expect(build).toMatch(
      /^PUBLIC_SUPABASE_URL="https:\/\/\$PROJECT_REF\.supabase\.co" PUBLIC_SUPABASE_ANON_KEY=\S+ npm run build$/,
    );
  });

  it("runs only npm scripts the project has", () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts,
    );
    const used = [...guide.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
    expect(used).toContain("build");
    for (const script of used) expect(scripts, script).toContain(script);
  });
});
