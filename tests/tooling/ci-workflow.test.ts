/**
 * The GitHub Actions workflow (.github/workflows/ci.yml) runs what .ci/run runs offline, on a
 * Node that the project's dependencies accept, and keeps the Playwright report of a failed run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import yaml from "js-yaml";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const read = (path: string) => readFileSync(join(root, path), "utf8");

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, string>;
}
interface Job {
  steps: Step[];
  needs?: string;
  if?: string;
  env?: Record<string, string>;
  services?: Record<string, { image: string; env?: Record<string, string>; ports?: string[] }>;
}
const workflow = yaml.load(read(".github/workflows/ci.yml")) as {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
};
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
const runs = steps.flatMap((step) => (step.run ?? "").split("\n").map((line) => line.trim()));

describe("the CI workflow", () => {
  it("runs on every push and pull request", () => {
    expect(Object.keys(workflow.on).sort()).toEqual(["pull_request", "push"]);
  });

  it("runs the same checks and tests as .ci/run", () => {
    const offline = read(".ci/run");
    for (const command of ["npm run check", "npm test"]) {
      expect(offline).toContain(command);
      expect(runs).toContain(command);
    }
    expect(runs.indexOf("npm run check")).toBeLessThan(runs.indexOf("npm test"));
  });

  it("takes Node from .nvmrc, with npm's cache, on a version Astro and the pinned node package accept", () => {
    const setup = steps.find((step) => step.uses?.startsWith("actions/setup-node@"));
    expect(setup?.with).toMatchObject({ "node-version-file": ".nvmrc", cache: "npm" });
    const major = Number(read(".nvmrc").trim());
    const astro = JSON.parse(read("node_modules/astro/package.json")) as { engines: { node: string } };
    const astroMajor = Number(/(\d+)/.exec(astro.engines.node)![1]);
    expect(major).toBeGreaterThanOrEqual(astroMajor);
    const pinned = (JSON.parse(read("package.json")) as { devDependencies: Record<string, string> }).devDependencies
      .node;
    expect(pinned).toMatch(new RegExp(`^\\^${major}\\.`));
  });

  it("installs Playwright's Chromium and points the tests at it, and uploads the report when a step fails", () => {
    expect(runs.some((line) => line.startsWith("npx playwright install --with-deps chromium"))).toBe(true);
    expect(runs.some((line) => line.includes("CHROME_PATH=") && line.includes("$GITHUB_ENV"))).toBe(true);
    const upload = steps.find((step) => step.uses?.startsWith("actions/upload-artifact@"));
    expect(upload?.if).toBe("failure()");
    expect(upload?.with?.path).toContain("playwright-report/");
    expect(read("playwright.config.ts")).toMatch(/\["html", \{ open: "never" \}\]/);
  });

  it("publishes the lessons to production after the tests pass on main, from a production build, when it has the secrets", () => {
    const job = workflow.jobs["publish-course"]!;
    expect(job.needs).toBe("test");
    expect(job.if).toContain("refs/heads/main");
    const commands = job.steps.flatMap((step) => (step.run ? [step.run.trim()] : []));
    const build = commands.indexOf("npm run build");
    expect(build).toBeGreaterThan(-1);
    expect(build).toBeLessThan(commands.indexOf("npm run course:publish"));
    for (const name of ["SUPABASE_URL", "SUPABASE_SERVICE_ROLE_KEY", "PUBLIC_SUPABASE_ANON_KEY"])
      expect(job.env?.[name] ?? job.env?.[`PUBLIC_${name}`], name).toMatch(/\$\{\{ secrets\./);
    // Without the secrets the job says so and does nothing: a fork's push stays green.
    for (const step of job.steps.slice(1))
      expect(step.if, step.name ?? step.uses).toBe("steps.secrets.outputs.set == 'true'");
  });

  it("checks the migrations on a PostgreSQL service of the hosted projects' major version", () => {
    const job = Object.values(workflow.jobs).find((candidate) => candidate.services?.postgres)!;
    const service = job.services!.postgres!;
    const hosted = /^\[db\][^[]*?major_version\s*=\s*(\d+)/m.exec(read("supabase/config.toml"))![1];
    expect(service.image).toBe(`postgres:${hosted}`);
    const url = new URL(job.env!.CHECK_DATABASE_URL!);
    expect(url.password).toBe(service.env!.POSTGRES_PASSWORD);
    expect(service.ports).toContain(`${url.port}:5432`);
    expect(read(".env.example")).toMatch(/^CHECK_DATABASE_URL=$/m);
  });

  it("deploys Stripe's catalogue and every declared function after the tests pass on main, in the order that refuses no buyer during a price change", () => {
    const job = workflow.jobs["deploy-functions"]!;
    expect(job.needs).toBe("test");
    expect(job.if).toContain("refs/heads/main");
    const commands = job.steps.flatMap((step) => (step.run ? [step.run.trim()] : []));
    const setup = commands.indexOf("npm run stripe:setup");
    const deploy = commands.findIndex((c) => c.startsWith("supabase functions deploy "));
    const archive = commands.indexOf("npm run stripe:setup -- --archive");
    expect(setup).toBeGreaterThan(-1);
    expect(deploy).toBeGreaterThan(setup);
    expect(archive).toBeGreaterThan(deploy);
    const declared = [...read("supabase/config.toml").matchAll(/^\[functions\.([a-z0-9-]+)\]/gm)]
      .map((m) => m[1])
      .sort();
    const deployed = commands[deploy]!.replace(/--project-ref \S+/, "")
      .trim()
      .split(/\s+/)
      .slice(3)
      .sort();
    expect(deployed).toEqual(declared);
    for (const name of ["STRIPE_SECRET_KEY", "SUPABASE_ACCESS_TOKEN", "SUPABASE_PROJECT_REF"])
      expect(job.env?.[name], name).toMatch(/\$\{\{ secrets\./);
    for (const step of job.steps.slice(1))
      expect(step.if, step.name ?? step.uses).toBe("steps.secrets.outputs.set == 'true'");
  });
});
