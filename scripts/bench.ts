// npm run bench: builds the site, then reports per page the HTML and JavaScript it sends, its
// islands and directives, render-blocking scripts, supabase-js, and Lighthouse mobile scores,
// checked against the budgets in docs/architecture.md; then the local backend
// (tools/bench/backend.ts) on PGlite and PostgreSQL, and the portal's time-to-data under mobile
// throttling (tools/bench/portal.ts). Writes bench/latest.json.
//
//   --no-build        measure the existing build instead of building
//   --dist DIR        the build folder (default dist-bench: a build for the local stack, kept apart
//                     from the production dist/ so that a bench never leaves one to be uploaded;
//                     with a build, passed to astro as --outDir)
//   --no-lighthouse   sizes and first screens only (fast)
//   --no-fold         skip measuring where each page's first screen ends (needs the browser)
//   --pages all       pages for Lighthouse (default all: every marketing page; or /,/dmca)
//   --runs 3          Lighthouse runs per page, and portal loads; the median is reported
//   --no-backend      skip the local stack's sign-in round trip and select throughput, the
//                     commerce functions (checkout latency, webhook events/s: tools/bench/commerce.ts)
//                     and the launch-day spike (tools/bench/launch.ts)
//   --backend-only    only those (no build, sizes or Lighthouse)
//   --no-portal       skip the portal's time-to-data (it builds the site for the local stack
//                     into a temporary folder, whatever --no-build says)
//   --portal-only     only that (no other build, sizes, Lighthouse or backend)
//   --no-fail         exit 0 even when a hard budget fails
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { delimiter, join, relative, resolve } from "node:path";
import { parseArgs, stripVTControlCharacters } from "node:util";
import { siteBuildEnv } from "@advisor-accelerator/local-stack";
import { analyzeSite, APP_PREFIXES, type PageAnalysis } from "../tools/bench/analyze.ts";
import { type BackendResult, backendFailed, backendTable, runBackendBench } from "../tools/bench/backend.ts";
import { BUDGETS, checkBudgets, checkPortal, exitCode } from "../tools/bench/budgets.ts";
import { checkCommerce, type CommerceResult, commerceTable, runCommerceBench } from "../tools/bench/commerce.ts";
import { messageOf } from "../tools/bench/errors.ts";
import {
  budgetLines,
  firstScreenTable,
  jsFilesTable,
  lighthouseTable,
  pagesTable,
  portalLine,
  portalTable,
} from "../tools/bench/format.ts";
import { checkLaunch, type LaunchResult, launchTable, runLaunchBench } from "../tools/bench/launch.ts";
import type { LighthousePageResult } from "../tools/bench/lighthouse.ts";
import type { PortalReport } from "../tools/bench/portal.ts";
import { findChromium } from "./ensure-chromium.ts";

const USAGE = `Usage: npm run bench -- [--no-build] [--dist DIR] [--no-lighthouse] [--no-fold] [--pages all|/,/dmca] [--runs N] [--no-backend | --backend-only] [--no-portal | --portal-only] [--no-fail]`;

const root = resolve(import.meta.dirname, "..");

function options(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      "no-build": { type: "boolean", default: false },
      dist: { type: "string", default: "dist-bench" },
      "no-lighthouse": { type: "boolean", default: false },
      pages: { type: "string", default: "all" },
      "no-fold": { type: "boolean", default: false },
      runs: { type: "string", default: "3" },
      "no-backend": { type: "boolean", default: false },
      "backend-only": { type: "boolean", default: false },
      "no-portal": { type: "boolean", default: false },
      "portal-only": { type: "boolean", default: false },
      "no-fail": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number >= 1, not ${values.runs}`);
  if (values["no-backend"] && values["backend-only"])
    throw new Error("--no-backend and --backend-only exclude each other");
  if (values["portal-only"] && (values["no-portal"] || values["backend-only"]))
    throw new Error("--portal-only excludes --no-portal and --backend-only");
  return { ...values, runs, dist: resolve(root, values.dist) };
}

/** How long `astro build` took, and the pages astro reported. */
interface BuildTiming {
  seconds: number;
  astroPages: number | null;
  /** The part of the build that grows with the page count: rendering the static routes. */
  renderSeconds: number | null;
}

/** The build's timing with its pages and its time per 1,000 pages (per1000). */
interface BuildInfo extends BuildTiming {
  pages: number;
  secondsPer1000PagesMeasured: number;
  secondsPer1000Pages: number;
  estimated: boolean;
}

/** Runs `astro build` (Node from node_modules/.bin first on PATH); returns its wall-clock time. */
async function build(dist: string): Promise<BuildTiming> {
  const astro = join(root, "node_modules", ".bin", "astro");
  if (!existsSync(astro)) throw new Error("node_modules/.bin/astro is missing: run npm ci");
  const args = ["build", "--outDir", dist];
  const env = {
    ...process.env,
    // No hosted project to build for: the local stack's address and key
    // (packages/local-stack/src/site.ts).
    ...siteBuildEnv("http://localhost:4321"),
    PATH: [join(root, "node_modules", ".bin"), process.env.PATH].join(delimiter),
    ASTRO_TELEMETRY_DISABLED: "1",
    FORCE_COLOR: "0",
    NO_COLOR: "1",
  };
  const started = performance.now();
  const output: Buffer[] = [];
  const code = await new Promise<number | null>((done, fail) => {
    const child = spawn(astro, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
    child.on("error", fail);
    child.on("close", done);
  });
  const seconds = (performance.now() - started) / 1000;
  const log = stripVTControlCharacters(Buffer.concat(output).toString("utf8"));
  if (code !== 0) {
    process.stderr.write(log);
    throw new Error(`astro build exited with ${code}`);
  }
  const reported = log.match(/(\d+) page\(s\) built in/);
  const routes = log.match(/generating static routes[\s\S]*?Completed in ([\d.]+)(ms|s)\b/);
  const routeSeconds = routes ? Number(routes[1]) / (routes[2] === "ms" ? 1000 : 1) : null;
  return {
    seconds: Number(seconds.toFixed(2)),
    astroPages: reported ? Number(reported[1]) : null,
    renderSeconds: routeSeconds === null ? null : Number(routeSeconds.toFixed(3)),
  };
}

/**
 * Seconds per 1,000 pages: measured when the site has enough pages; on a small site, start-up
 * (everything but page rendering) plus 1,000 times the rendering time per page, an estimate.
 */
function per1000(build: BuildTiming, pages: number): BuildInfo {
  const measured = Number(((build.seconds / pages) * 1000).toFixed(1));
  const timed = { ...build, pages, secondsPer1000PagesMeasured: measured };
  if (pages >= BUDGETS.buildMinPagesToJudge || build.renderSeconds === null)
    return { ...timed, secondsPer1000Pages: measured, estimated: false };
  const startup = build.seconds - build.renderSeconds;
  const estimate = Number((startup + (build.renderSeconds / pages) * 1000).toFixed(1));
  return { ...timed, secondsPer1000Pages: estimate, estimated: true };
}

function lighthousePages(option: string, pages: readonly PageAnalysis[]): string[] {
  const marketing = pages.filter((p) => p.marketing && p.path !== "/404").map((p) => p.path);
  if (option.trim() === "all") return marketing;
  const wanted = option
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => (p.startsWith("/") ? p : `/${p}`))
    .map((p) => (p.length > 1 ? p.replace(/\/+$/, "").replace(/\.html$/, "") : p));
  const known = new Set(pages.map((p) => p.path));
  const unknown = wanted.filter((p) => !known.has(p));
  if (unknown.length) throw new Error(`--pages: no built page at ${unknown.join(", ")}`);
  return [...new Set(wanted)];
}

/** The Lighthouse part of the report: a result per page, or why Lighthouse could not run. */
interface LighthouseSection {
  runs: number;
  results: LighthousePageResult[];
  error?: string;
}

async function main(): Promise<number> {
  let opts: ReturnType<typeof options>;
  try {
    opts = options(process.argv.slice(2));
  } catch (error) {
    console.error(`${messageOf(error)}\n${USAGE}`);
    return 2;
  }
  if (opts.help) {
    console.log(USAGE);
    return 0;
  }
  if (opts["backend-only"]) {
    const backend = await backendSection();
    const commerce = await commerceSection();
    const launch = await launchSection();
    const budgets = [...checkCommerce(commerce), ...checkLaunch(launch)];
    console.log(`\n${budgetLines(budgets)}`);
    mkdirSync(join(root, "bench"), { recursive: true });
    writeFileSync(
      join(root, "bench", "latest.json"),
      `${JSON.stringify({ date: new Date().toISOString(), node: process.version, backend, commerce, launch, budgets }, null, 2)}\n`,
    );
    console.log("\nWrote bench/latest.json (backend only).");
    const failed = backendFailed(backend) || budgets.some((b) => b.status === "FAIL");
    return failed && !opts["no-fail"] ? 1 : 0;
  }
  if (opts["portal-only"]) {
    const portal = await portalSection(opts.runs);
    const budgets = checkPortal(portal);
    console.log(`\nBudgets (docs/architecture.md)\n`);
    console.log(budgetLines(budgets));
    const fail = budgets.filter((b) => b.status === "FAIL").length;
    const warn = budgets.filter((b) => b.status === "WARN").length;
    mkdirSync(join(root, "bench"), { recursive: true });
    writeFileSync(
      join(root, "bench", "latest.json"),
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          node: process.version,
          options: { runs: opts.runs, portal: true },
          limits: {
            portalTimeToDataMs: BUDGETS.portalTimeToDataMs,
            lessonTimeToContentMs: BUDGETS.lessonTimeToContentMs,
            deskTimeToDataMs: BUDGETS.deskTimeToDataMs,
          },
          portal,
          budgets,
          summary: { fail, warn },
        },
        null,
        2,
      )}\n`,
    );
    console.log(`\n${fail} hard budget(s) failed, ${warn} warning(s). Wrote bench/latest.json (portal only).`);
    return exitCode(budgets, { noFail: opts["no-fail"] });
  }

  let timing: BuildTiming | null = null;
  if (!opts["no-build"]) {
    console.log(`Building with astro into ${relative(root, opts.dist) || "."}…`);
    timing = await build(opts.dist);
  }
  if (!existsSync(opts.dist)) {
    console.error(`No build at ${opts.dist}: run without --no-build.`);
    return 2;
  }

  const { pages, jsFiles } = analyzeSite(opts.dist);
  if (!pages.length) {
    console.error(`No HTML pages in ${opts.dist}.`);
    return 2;
  }
  const buildInfo = timing && per1000(timing, pages.length);

  console.log(
    `\nPages (${pages.length}; KB = 1,024 bytes; gzip level 9 per file). JS = inline scripts, <script src>, ` +
      `modulepreloads and every island's component and renderer, with their static imports; ` +
      `"at once" loads with the page, "on view" waits for a visible/media/custom-directive island.\n`,
  );
  console.log(pagesTable(pages));
  if (jsFiles.length) {
    console.log(`\nJS files (largest first)\n`);
    console.log(jsFilesTable(jsFiles, pages.length));
  }

  if (!opts["no-fold"]) await firstScreens(opts.dist, pages);

  let lighthouse: LighthouseSection | null = null;
  if (!opts["no-lighthouse"]) {
    let targets: string[];
    try {
      targets = lighthousePages(opts.pages, pages);
    } catch (error) {
      console.error(`${messageOf(error)}\n${USAGE}`);
      return 2;
    }
    console.log(`\nLighthouse 13, mobile, ${opts.runs} run(s) per page: ${targets.join(", ")}`);
    const [load = 0] = loadavg();
    if (load > availableParallelism())
      console.log(
        `  note: load average ${load.toFixed(1)} on ${availableParallelism()} cores; other work on this machine slows the runs and raises TBT/LCP`,
      );
    const { runLighthouse } = await import("../tools/bench/lighthouse.ts");
    try {
      lighthouse = {
        runs: opts.runs,
        results: await runLighthouse({
          dist: opts.dist,
          pages: targets,
          runs: opts.runs,
          log: (line) => console.log(line),
        }),
      };
    } catch (error) {
      lighthouse = { runs: opts.runs, results: [], error: `Lighthouse could not run: ${messageOf(error)}` };
      console.error(lighthouse.error);
    }
    if (lighthouse.results.length) {
      console.log(`\nLighthouse (performance: median of the runs; other columns: the median run)\n`);
      console.log(lighthouseTable(lighthouse.results));
      for (const r of lighthouse.results) {
        if (r.error !== undefined) continue;
        if (r.lcpElement) console.log(`${r.path}: LCP element ${r.lcpElement}`);
        if (r.benchmarkIndex !== null && r.benchmarkIndex < 1000)
          console.log(`${r.path}: Lighthouse CPU benchmark ${r.benchmarkIndex} (a busy or slow machine)`);
        for (const warning of new Set(r.warnings)) console.log(`${r.path}: Lighthouse warns: ${warning}`);
        for (const [category, items] of Object.entries(r.findings)) {
          if (items.length)
            console.log(`${r.path}: ${category} loses points on\n${items.map((i) => `    ${i}`).join("\n")}`);
        }
      }
    }
  }

  if (buildInfo) {
    const b = buildInfo;
    console.log(
      `\nBuild: ${b.seconds} s wall-clock for ${b.pages} pages` +
        (b.astroPages !== null && b.astroPages !== b.pages ? ` (astro reported ${b.astroPages})` : "") +
        (b.renderSeconds !== null ? `, of which ${b.renderSeconds} s rendering pages` : "") +
        `; ${b.secondsPer1000PagesMeasured} s per 1,000 pages as measured` +
        (b.estimated
          ? `, ~${b.secondsPer1000Pages} s per 1,000 pages estimated (start-up + 1,000 x render time per page)`
          : ""),
    );
  }

  const backend = opts["no-backend"] ? null : await backendSection();
  const commerce = opts["no-backend"] ? null : await commerceSection();
  const launch = opts["no-backend"] ? null : await launchSection();
  const portal = opts["no-portal"] ? null : await portalSection(opts.runs);

  const budgets = [
    ...checkBudgets({ pages, lighthouse, build: buildInfo, portal }),
    ...(commerce ? checkCommerce(commerce) : []),
    ...(launch ? checkLaunch(launch) : []),
  ];
  console.log(`\nBudgets (docs/architecture.md; app pages exempt from the supabase rule: ${APP_PREFIXES.join(" ")})\n`);
  console.log(budgetLines(budgets));

  const report = {
    date: new Date().toISOString(),
    node: process.version,
    options: {
      build: !opts["no-build"],
      dist: opts.dist,
      lighthouse: !opts["no-lighthouse"],
      pages: opts.pages,
      runs: opts.runs,
      fold: !opts["no-fold"],
      backend: !opts["no-backend"],
      portal: !opts["no-portal"],
    },
    limits: BUDGETS,
    build: buildInfo,
    pages,
    jsFiles,
    lighthouse,
    backend,
    commerce,
    launch,
    portal,
    budgets,
    summary: {
      fail: budgets.filter((b) => b.status === "FAIL").length,
      warn: budgets.filter((b) => b.status === "WARN").length,
    },
  };
  mkdirSync(join(root, "bench"), { recursive: true });
  writeFileSync(join(root, "bench", "latest.json"), `${JSON.stringify(report, null, 2)}\n`);

  const code = Math.max(
    exitCode(budgets, { noFail: opts["no-fail"] }),
    backend && backendFailed(backend) && !opts["no-fail"] ? 1 : 0,
  );
  console.log(
    `\n${report.summary.fail} hard budget(s) failed, ${report.summary.warn} warning(s). Wrote bench/latest.json.` +
      (report.summary.fail && opts["no-fail"] ? " (--no-fail: exit 0)" : ""),
  );
  return code;
}

/**
 * Where each page's first screen ends (tools/bench/fold.ts), in the bench's browser: sets
 * `firstScreen` on every page and prints the table. Without a browser, says so and goes on.
 */
async function firstScreens(dist: string, pages: PageAnalysis[]): Promise<void> {
  const { chromePath } = await import("../tools/bench/lighthouse.ts");
  const { measureFirstScreens, MOBILE_VIEWPORT } = await import("../tools/bench/fold.ts");
  const { serveDist } = await import("../tools/bench/serve.ts");
  let chrome: string;
  try {
    chrome = chromePath();
  } catch (error) {
    console.log(`\nFirst screens not measured: ${messageOf(error)}`);
    return;
  }
  const server = await serveDist(dist);
  try {
    const files = new Map(pages.map((p) => [p.path, p.file]));
    const results = await measureFirstScreens({
      origin: server.origin,
      paths: pages.map((p) => p.path),
      read: (path) => readFileSync(join(dist, files.get(path) ?? path), "utf8"),
      chrome,
    });
    for (const page of pages) page.firstScreen = results[page.path] ?? null;
  } catch (error) {
    console.log(`\nFirst screens not measured: ${messageOf(error)}`);
    return;
  } finally {
    await server.close();
  }
  console.log(
    `\nFirst screens (${MOBILE_VIEWPORT.width} x ${MOBILE_VIEWPORT.height}, Lighthouse's mobile screen): the gzip bytes of the HTML ` +
      `before the first top-level block below the fold, which should fit the first ${BUDGETS.firstScreenGzip / 1024} KB of the response.\n`,
  );
  console.log(firstScreenTable(pages, BUDGETS.firstScreenGzip));
}

/** The local stack on PGlite and PostgreSQL: sign-in + portal round trip, authenticated select rate. */
async function backendSection(): Promise<BackendResult[]> {
  console.log(`\nBackend: the local stack over HTTP with supabase-js (demo customer, 2 orders)`);
  const results = await runBackendBench({ log: (line) => console.log(line) });
  console.log(`\n${backendTable(results)}`);
  return results;
}

async function commerceSection(): Promise<CommerceResult[]> {
  console.log(`\nCommerce: stripe-checkout on the Stripe stand-in, stripe-webhook with new buyers' events`);
  const results = await runCommerceBench({ log: (line) => console.log(line) });
  console.log(`\n${commerceTable(results)}`);
  return results;
}

async function launchSection(): Promise<LaunchResult[]> {
  console.log(
    `\nLaunch day: checkouts and Stripe's deliveries at once (duplicates, out-of-order bank debits), then Stripe's retries`,
  );
  const results = await runLaunchBench({ log: (line) => console.log(line) });
  console.log(`\n${launchTable(results)}`);
  return results;
}

/** The portal's time-to-data (tools/bench/portal.ts): its runs, then the table and the median. */
async function portalSection(runs: number): Promise<PortalReport> {
  const { MOBILE_DEVICE, MOBILE_THROTTLING: t, runPortalBench } = await import("../tools/bench/portal.ts");
  const { width, height } = MOBILE_DEVICE.viewport;
  console.log(
    `\nPortal time-to-data: navigation to the "portal-data-shown" mark (orders and profile shown), demo customer ` +
      `signed in, cold, ${runs} run(s); ${t.rttMs} ms per request, ${t.downloadKbps} Kbps down, ${t.uploadKbps} Kbps up, ` +
      `${t.cpuSlowdown}x CPU slowdown, ${width} x ${height} at ${MOBILE_DEVICE.deviceScaleFactor}x`,
  );
  const portal = await runPortalBench({ runs, chrome: findChromium(), log: (line) => console.log(line) });
  if ("perRun" in portal) console.log(`\n${portalTable(portal)}\n`);
  console.log(portalLine(portal, BUDGETS.portalTimeToDataMs));
  if ("lesson" in portal && portal.lesson) {
    console.log(`\nLesson time-to-content: navigation to the "lesson-content-shown" mark (the lesson's body shown)`);
    console.log(`\n${portalTable(portal.lesson, "time-to-content ms")}\n`);
    console.log(portalLine(portal.lesson, BUDGETS.lessonTimeToContentMs, "to content"));
  }
  if ("desk" in portal && portal.desk) {
    const data = portal.desk.data;
    console.log(
      `\nDesk time-to-data: navigation to the "desk-data-shown" mark (the first page of leads shown), demo admin` +
        (data
          ? `, with ${data.students.toLocaleString("en-US")} students and ${data.leads.toLocaleString("en-US")} leads`
          : ""),
    );
    console.log(`\n${portalTable(portal.desk)}\n`);
    console.log(portalLine(portal.desk, BUDGETS.deskTimeToDataMs));
  }
  return portal;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 2;
  },
);
