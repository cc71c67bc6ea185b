/**
 * `npm run launch:check` (scripts/launch-check.ts): what is left before launch, from the content and
 * the environment, exiting 1 while anything is. On the content as it stands it lists every sample
 * item the production build refuses, the providers not set and what DEPLOY.md requires; on a
 * project with all of that done it says nothing is left and exits 0.
 */
import { execFile } from "node:child_process";
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { addDays } from "../../packages/shared/cohort.ts";
import { launchCheck, report } from "../../scripts/launch-check.ts";
import { findSamples, sampleLines } from "../../src/integrations/sample-content.ts";
import { EXAMPLE_PROJECT } from "../support/example-project.ts";

const root = join(import.meta.dirname, "../..");
const run = promisify(execFile);

/** A deploy's environment, as DEPLOY.md sets it, live. */
const LIVE = {
  ...EXAMPLE_PROJECT,
  STRIPE_SECRET_KEY: "rk_live_51AbCdEfGhIjKlMnOp",
  STRIPE_WEBHOOK_SECRET: "whsec_0123456789abcdef",
  ALLOWED_ORIGINS: "https://advisoraccelerator.com,https://www.advisoraccelerator.com",
  SITE_URL: "https://advisoraccelerator.com",
  RESEND_API_KEY: "re_0123456789abcdef",
  MAIL_FROM: "Advisor Accelerator <team@advisoraccelerator.com>",
};

/** A copy of the project's content and Supabase settings with everything before launch done. */
function launchReady(): string {
  const dir = mkdtempSync(join(tmpdir(), "launch-ready-"));
  cpSync(join(root, "content"), join(dir, "content"), { recursive: true });
  cpSync(join(root, "supabase/config.toml"), join(dir, "supabase/config.toml"));
  for (const item of findSamples(dir)) {
    const file = join(dir, item.file);
    writeFileSync(file, readFileSync(file, "utf8").replace(/^\s*sample: true\n/m, ""));
  }
  const site = join(dir, "content/site.yaml");
  writeFileSync(
    site,
    readFileSync(site, "utf8")
      .replace('consultationFormUrl: ""', "consultationFormUrl: https://forms.example.com/advisor-accelerator")
      .replace('bookingWidgetUrl: ""', "bookingWidgetUrl: https://book.example.com/advisor-accelerator")
      .replace('bookingScriptUrl: ""', "bookingScriptUrl: https://book.example.com/embed.js")
      .replace('wistiaOsMediaId: ""', "wistiaOsMediaId: a1b2c3d4e5")
      .replace('wistiaMediaId: ""', "wistiaMediaId: f6g7h8i9j0"),
  );
  appendFileSync(join(dir, "supabase/config.toml"), '\n[remotes.production]\nproject_id = "abcdefghijklmnopqrst"\n');
  return dir;
}

const ready = launchReady();
afterAll(() => rmSync(ready, { recursive: true, force: true }));

describe("npm run launch:check", () => {
  it("lists, on the content as it stands, every sample item, the providers not set and DEPLOY.md's settings; exit 1", async () => {
    const [samples, providers, deployment] = launchCheck(root, {});
    for (const line of sampleLines(findSamples(root))) expect(samples!.left).toContain(line);
    expect(samples!.left.length).toBeGreaterThan(0);
    expect(providers!.left.join("\n")).toContain("embeds.consultationFormUrl: not set");
    for (const name of ["PUBLIC_SUPABASE_URL", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "MAIL_FROM"]) {
      expect(deployment!.left.join("\n")).toContain(name);
    }
    expect(deployment!.left.join("\n")).toContain("[remotes.production]");

    const cli = await run(process.execPath, [join(root, "scripts/launch-check.ts")], {
      cwd: root,
      env: { PATH: process.env.PATH },
    }).catch((error: { code: number; stdout: string }) => error);
    expect("code" in cli ? cli.code : 0).toBe(1);
    expect(cli.stdout).toContain("left before launch.");
    expect(cli.stdout).toContain(`  - ${sampleLines(findSamples(root))[0]}`);
  });

  it("says nothing is left once the samples are replaced, the providers set and the deploy's settings live", () => {
    const sections = launchCheck(ready, LIVE, new Date("2026-11-28T18:00:00Z"));
    expect(sections.flatMap((section) => section.left)).toEqual([]);
    expect(report(sections)).toContain("Nothing left: ready to launch.");
  });

  it("holds back a cohort program with no cohort open to join, test-mode keys and the local stack's switches", () => {
    const starts = /^ {4}- (\d{4}-\d{2}-\d{2})$/gm;
    const program = readFileSync(join(ready, "content/programs/ai-advisor-accelerator.yaml"), "utf8");
    const last = [...program.matchAll(starts)]
      .map((match) => match[1]!)
      .sort()
      .at(-1)!;
    const closed = new Date(`${addDays(last, 15)}T18:00:00Z`);
    const left = launchCheck(
      ready,
      {
        ...LIVE,
        STRIPE_SECRET_KEY: "sk_test_51AbCdEf",
        RATE_LIMIT_SCALE: "1000",
        SITE_URL: "https://staging.example.com",
      },
      closed,
    ).flatMap((section) => section.left);
    expect(left).toEqual([
      "content/programs/ai-advisor-accelerator.yaml: no cohort is open to join, so AI Advisor Accelerator cannot be bought: add the next start days to `cohort.starts`",
      "STRIPE_SECRET_KEY is a test-mode key: going live takes the live one (DEPLOY.md, step 9)",
      "SITE_URL is https://staging.example.com, not the site's address in content/site.yaml (https://advisoraccelerator.com)",
      "RATE_LIMIT_SCALE is set: it is for the local stack, the tests or a preview, never production",
    ]);
  });
});
