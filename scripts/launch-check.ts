/**
 * `npm run launch:check`: what is left before the site can launch, read from the content and the
 * environment, so the business and the operator work from one list instead of a document that
 * drifts. It exits 1 while anything is left, 0 when nothing is.
 *
 * - Sample content: every item content/ marks `sample: true` (src/integrations/sample-content.ts,
 *   the list the production build refuses), and a cohort program with no cohort open to join.
 * - Providers: the scheduling provider's form and widget and the videos of content/site.yaml not
 *   set yet (the site works without them, with its own form and posters, but the business means
 *   to set them), and no embed override left in the environment.
 * - Deployment (DEPLOY.md): the build's Supabase project (step 7), the production block of
 *   supabase/config.toml (step 2), the functions' secrets (step 6) with live Stripe keys (step 9),
 *   and none of the local stack's or the tests' switches. The secrets live in Supabase, where this
 *   command cannot read them: export them in the shell you deploy from (DEPLOY.md does) and it
 *   checks them by the rules the functions start with (functions/_shared/env.ts).
 *
 * Usage: npm run launch:check. Reads the environment and, beneath it, a .env file at the root.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseEnv } from "node:util";
import { load } from "js-yaml";
import { parse as parseToml } from "smol-toml";
import { cohortAt } from "../packages/shared/cohort.ts";
import { cohortStarts } from "./catalogue.ts";
import { envProblems, type FunctionVariable } from "../functions/_shared/env.ts";
import { findSamples, sampleLines } from "../src/integrations/sample-content.ts";
import { supabaseProject } from "../src/lib/supabase-url.ts";

const ROOT = join(import.meta.dirname, "..");

/** One part of the list: a heading, and what is left under it. */
export interface Section {
  heading: string;
  left: string[];
}

type Env = Record<string, string | undefined>;
type Data = Record<string, unknown>;
const isRecord = (value: unknown): value is Data => !!value && typeof value === "object" && !Array.isArray(value);
const read = (path: string): Data => {
  const data: unknown = load(readFileSync(path, "utf8"));
  return isRecord(data) ? data : {};
};

/** The functions' secrets DEPLOY.md (step 6) sets with `supabase secrets set`. */
export const FUNCTION_SECRETS = [
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "ALLOWED_ORIGINS",
  "SITE_URL",
  "RESEND_API_KEY",
  "MAIL_FROM",
] as const satisfies readonly FunctionVariable[];

/** Switches of the local stack, the tests and previews, which a production deploy never sets. */
const NOT_IN_PRODUCTION = [
  "STRIPE_API_URL",
  "RESEND_API_URL",
  "RATE_LIMIT_SCALE",
  "LOCAL_STACK_BUILD",
  "ALLOW_SAMPLE_CONTENT",
  "EMBED_CONSULTATION_FORM_URL",
  "EMBED_BOOKING_WIDGET_URL",
  "EMBED_BOOKING_SCRIPT_URL",
  "EMBED_WISTIA_PLAYER_URL",
];

/** A cohort program whose cohorts have all closed to new buyers: it cannot be bought. */
function closedCohorts(root: string, timeZone: string, now: Date): string[] {
  const dir = join(root, "content/programs");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".yaml"))
    .flatMap((name) => {
      const program = read(join(dir, name));
      if (!isRecord(program.cohort)) return [];
      return cohortAt(cohortStarts(program, join(dir, name)), timeZone, now)
        ? []
        : [
            `content/programs/${name}: no cohort is open to join, so ${String(program.name)} cannot be bought: add the next start days to \`cohort.starts\``,
          ];
    });
}

/** What is left before launch, given the project at `root` and the environment `env`. */
export function launchCheck(root: string, env: Env, now: Date = new Date()): Section[] {
  const site = read(join(root, "content/site.yaml")).site;
  const settings = isRecord(site) ? site : {};
  const embeds = isRecord(settings.embeds) ? settings.embeds : {};
  const heroVideo = isRecord(settings.heroVideo) ? settings.heroVideo : {};
  const timeZone = typeof settings.timeZone === "string" ? settings.timeZone : "UTC";
  const origin = typeof settings.url === "string" ? new URL(settings.url).origin : "";

  const samples = [...sampleLines(findSamples(root, join(root, "content"))), ...closedCohorts(root, timeZone, now)];

  const unset = (value: unknown) => typeof value !== "string" || value.trim() === "";
  const providers = [
    unset(embeds.consultationFormUrl) &&
      "content/site.yaml, embeds.consultationFormUrl: not set, so the consultation pages show the site's own form (docs/operations.md, Lead capture)",
    unset(embeds.bookingWidgetUrl) &&
      "content/site.yaml, embeds.bookingWidgetUrl: not set, so /apply shows the site's own form instead of your booking calendar",
    !unset(embeds.bookingWidgetUrl) &&
      unset(embeds.bookingScriptUrl) &&
      "content/site.yaml, embeds.bookingScriptUrl: the booking widget's embed script is not set",
    unset(heroVideo.wistiaMediaId) &&
      "content/site.yaml, heroVideo.wistiaMediaId: not set, so the home page and /transformation show a still, no video",
    unset(embeds.wistiaOsMediaId) &&
      "content/site.yaml, embeds.wistiaOsMediaId: not set, so /advisor-os shows its poster, no video",
  ].filter((line): line is string => typeof line === "string");

  const deployment: string[] = [];
  try {
    supabaseProject(env, { local: false });
  } catch (error) {
    for (const line of (error as Error).message.split("\n"))
      deployment.push(`${line} (DEPLOY.md, step 7: the site's build)`);
  }
  const configPath = join(root, "supabase/config.toml");
  const config = existsSync(configPath) ? parseToml(readFileSync(configPath, "utf8")) : {};
  const remotes = isRecord(config.remotes) ? config.remotes : {};
  const production = isRecord(remotes.production) ? remotes.production : null;
  if (!production || unset(production.project_id) || String(production.project_id).includes("$")) {
    deployment.push(
      "supabase/config.toml has no [remotes.production] block with the project's id: production's Auth URLs and mail settings (DEPLOY.md, step 2)",
    );
  }
  for (const problem of envProblems(env, FUNCTION_SECRETS)) {
    deployment.push(
      `${problem}: a function secret (DEPLOY.md, step 6), set with \`npx supabase secrets set\`; export it here too to check it`,
    );
  }
  const stripeKey = env.STRIPE_SECRET_KEY?.trim() ?? "";
  if (/^(sk|rk)_test_/.test(stripeKey)) {
    deployment.push("STRIPE_SECRET_KEY is a test-mode key: going live takes the live one (DEPLOY.md, step 9)");
  }
  const siteUrl = env.SITE_URL?.trim();
  if (siteUrl && URL.canParse(siteUrl) && origin && new URL(siteUrl).origin !== origin) {
    deployment.push(`SITE_URL is ${siteUrl}, not the site's address in content/site.yaml (${origin})`);
  }
  const allowed = env.ALLOWED_ORIGINS?.split(",").map((entry) => entry.trim().replace(/\/$/, "")) ?? [];
  if (env.ALLOWED_ORIGINS?.trim() && origin && !allowed.includes(origin)) {
    deployment.push(`ALLOWED_ORIGINS does not include the site's address (${origin}): its checkout would be refused`);
  }
  for (const name of NOT_IN_PRODUCTION) {
    if (env[name]?.trim())
      deployment.push(`${name} is set: it is for the local stack, the tests or a preview, never production`);
  }

  return [
    {
      heading:
        'Sample content: replace each with the business\'s own and delete its `sample: true` line, or delete the entry (docs/content-editing.md, "Sample content")',
      left: samples,
    },
    { heading: "Providers (content/site.yaml)", left: providers },
    { heading: "Deployment (DEPLOY.md)", left: deployment },
  ];
}

/** The report as printed: each section with a count and its items, then the total. */
export function report(sections: readonly Section[]): string {
  const total = sections.reduce((sum, section) => sum + section.left.length, 0);
  const lines = ["What is left before launch", ""];
  for (const section of sections) {
    lines.push(`${section.heading}: ${section.left.length === 0 ? "done" : `${section.left.length} left`}`);
    for (const item of section.left) lines.push(`  - ${item}`);
    lines.push("");
  }
  lines.push(total === 0 ? "Nothing left: ready to launch." : `${total} left before launch.`);
  return lines.join("\n");
}

/** The environment, over a .env file at `root` when there is one (as the build reads both). */
export function environment(root: string, processEnv: Env = process.env): Env {
  const file = join(root, ".env");
  return { ...(existsSync(file) ? parseEnv(readFileSync(file, "utf8")) : {}), ...processEnv };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const sections = launchCheck(ROOT, environment(ROOT));
  console.log(report(sections));
  process.exitCode = sections.some((section) => section.left.length > 0) ? 1 : 0;
}
