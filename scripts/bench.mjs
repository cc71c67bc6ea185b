// npm run bench: builds the site, then reports per page the HTML and JavaScript it sends, its
// islands, and Lighthouse mobile scores, checked against the budgets in DESIGN.md.
//   --no-build        analyse the existing dist/
//   --no-lighthouse   sizes only
//   --pages /,/dmca   pages for Lighthouse (default: every marketing page)
//   --runs 3          Lighthouse runs per page (the median is reported)
//   --no-fail         exit 0 even when a budget fails
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { analyzeSite } from "./bench/analyze.mjs";
import { runLighthouse } from "./bench/lighthouse.mjs";

const { values } = parseArgs({
  options: {
    build: { type: "boolean", default: true },
    "no-build": { type: "boolean", default: false },
    lighthouse: { type: "boolean", default: true },
    "no-lighthouse": { type: "boolean", default: false },
    pages: { type: "string", default: "all" },
    runs: { type: "string", default: "3" },
    "no-fail": { type: "boolean", default: false },
  },
});

const root = join(import.meta.dirname, "..");
const dist = join(root, "dist");
const kb = (bytes) => (bytes / 1024).toFixed(1);

/** DESIGN.md, Budgets. `hard` ones fail the run; the others are reported. */
const BUDGETS = {
  jsOnLoadGzip: { limit: 75 * 1024, hard: true, aim: 20 * 1024 },
  htmlGzip: { limit: 14 * 1024, hard: false },
  lighthouse: { performance: 100, accessibility: 100, seo: 100 },
  clsMax: 0.01,
  tbtMs: 30,
  lcpMs: 1000,
  buildSecondsPer1000Pages: 30,
};

let build = null;
if (values.build && !values["no-build"]) {
  const started = process.hrtime.bigint();
  // process.execPath: the Node running this script, whatever `node` is first on PATH.
  execFileSync(process.execPath, [join(root, "node_modules/astro/bin/astro.mjs"), "build"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1" },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  build = { seconds: Number(seconds.toFixed(2)) };
}

const pages = analyzeSite(dist);
if (build) {
  build.pages = pages.length;
  build.secondsPer1000Pages = Number(((build.seconds / pages.length) * 1000).toFixed(1));
}

console.log("\nPages (JS on load includes inline scripts; deferred JS waits for an island to scroll into view)\n");
console.table(
  pages.map((p) => ({
    page: p.path,
    "HTML KB": kb(p.html.raw),
    "HTML KB gz": kb(p.html.gzip),
    "JS load KB": kb(p.jsOnLoad.raw),
    "JS load KB gz": kb(p.jsOnLoad.gzip),
    "JS deferred KB gz": kb(p.jsDeferred.gzip),
    islands: p.islands,
    directives: p.directives.join(",") || "-",
    "render-blocking": p.renderBlocking ? "YES" : "no",
    supabase: p.supabase ? "YES" : "no",
  })),
);

let lighthouse = [];
if (values.lighthouse && !values["no-lighthouse"]) {
  const lhPages = (
    values.pages === "all"
      ? pages
          .filter((p) => p.marketing && p.path !== "/404")
          .map((p) => p.path)
          .join(",")
      : values.pages
  )
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  lighthouse = await runLighthouse(dist, lhPages, Number(values.runs));
  console.log(`\nLighthouse ${"13"} mobile, median of ${values.runs} run(s)\n`);
  console.table(
    lighthouse.map((r) => ({
      page: r.path,
      performance: r.performance,
      accessibility: r.accessibility,
      seo: r.seo,
      "best practices": r.bestPractices,
      "FCP ms": r.fcpMs,
      "LCP ms": r.lcpMs,
      "TBT ms": r.tbtMs,
      CLS: r.cls,
    })),
  );
}

if (build)
  console.log(`\nBuild: ${build.seconds} s for ${build.pages} pages (${build.secondsPer1000Pages} s per 1,000 pages)`);

const checks = [];
const check = (name, ok, hard, detail) => checks.push({ name, ok, hard, detail });
for (const p of pages.filter((page) => page.marketing)) {
  const js = p.jsOnLoad.gzip;
  check(`${p.path}: JS on load <= 75 KB gzip`, js <= BUDGETS.jsOnLoadGzip.limit, true, `${kb(js)} KB`);
  if (js > BUDGETS.jsOnLoadGzip.aim) check(`${p.path}: JS on load <= 20 KB gzip (aim)`, false, false, `${kb(js)} KB`);
  check(`${p.path}: no render-blocking script`, !p.renderBlocking, true, "");
  check(`${p.path}: no supabase-js`, !p.supabase, true, "");
  if (p.html.gzip > BUDGETS.htmlGzip.limit)
    check(`${p.path}: HTML <= 14 KB gzip`, false, false, `${kb(p.html.gzip)} KB`);
}
for (const r of lighthouse) {
  for (const [category, min] of Object.entries(BUDGETS.lighthouse)) {
    check(`${r.path}: Lighthouse ${category} ${min}`, r[category] >= min, true, String(r[category]));
  }
  check(`${r.path}: CLS <= ${BUDGETS.clsMax}`, r.cls <= BUDGETS.clsMax, true, String(r.cls));
  check(`${r.path}: TBT <= ${BUDGETS.tbtMs} ms`, r.tbtMs <= BUDGETS.tbtMs, false, `${r.tbtMs} ms`);
  check(`${r.path}: LCP <= ${BUDGETS.lcpMs} ms`, r.lcpMs <= BUDGETS.lcpMs, false, `${r.lcpMs} ms`);
}
// Start-up dominates a small site; extrapolating ten pages to a thousand would only measure it.
if (build && build.pages >= 100) {
  const per = build.secondsPer1000Pages;
  check(
    `build <= ${BUDGETS.buildSecondsPer1000Pages} s per 1,000 pages`,
    per <= BUDGETS.buildSecondsPer1000Pages,
    false,
    `${per} s`,
  );
}

console.log("\nBudgets\n");
for (const c of checks) {
  const mark = c.ok ? "PASS" : c.hard ? "FAIL" : "WARN";
  console.log(`${mark}  ${c.name}${c.detail ? `  (${c.detail})` : ""}`);
}

mkdirSync(join(root, "bench"), { recursive: true });
const report = { date: new Date().toISOString(), build, pages, lighthouse, budgets: checks };
writeFileSync(join(root, "bench/latest.json"), `${JSON.stringify(report, null, 2)}\n`);
console.log("\nWrote bench/latest.json");

const failed = checks.filter((c) => c.hard && !c.ok);
if (failed.length && !values["no-fail"]) {
  console.error(`\n${failed.length} budget(s) failed`);
  process.exit(1);
}
