// The budgets of docs/architecture.md (section Budgets), checked against a bench report.
// A hard budget FAILs the run; a soft one WARNs.
import type { FirstScreenResult } from "./fold.ts";
import type { PortalMeasurement, PortalReport } from "./portal.ts";

export const KB = 1024;

export const BUDGETS = {
  /** Marketing pages: JavaScript on load, gzip (the React runtime plus islands, as a first step). */
  jsGzip: 75 * KB,
  /** The aim: what loads before the visitor scrolls or interacts. */
  jsEagerGzipAim: 20 * KB,
  /** Where the content allows. */
  htmlGzip: 14 * KB,
  /**
   * What the first screen needs (head, critical CSS, header, the blocks above the fold at
   * 412 x 823), gzip: the first 14 KB of the response, TCP's initial congestion window, so that
   * screen arrives in the first round trip (tools/bench/fold.ts).
   */
  firstScreenGzip: 14 * KB,
  /** Every marketing page, Lighthouse mobile (simulated slow 4G, 4x CPU slowdown), median of the runs. */
  lighthouse: { performance: 100, accessibility: 100, seo: 100 },
  cls: 0.01,
  tbtMs: 30,
  lcpMs: 900,
  buildSecondsPer1000Pages: 30,
  /**
   * /portal, from navigation to the orders and the profile shown, cold, for a signed-in customer,
   * under Lighthouse's mobile throttling applied for real (tools/bench/portal.ts), median of the
   * runs. The spec's single-page app took 4.3 s on the same work.
   */
  portalTimeToDataMs: 1500,
  /**
   * A lesson page, from navigation to the lesson's body shown (fetched from the database once the
   * session is known), under the same conditions as the portal.
   */
  lessonTimeToContentMs: 2000,
  /**
   * /desk, from navigation to the first page of leads shown, for the demo admin, with the bench's
   * 10,000 students and 50,000 leads (tools/bench/desk-data.ts), under the same conditions as the
   * portal and within the same budget.
   */
  deskTimeToDataMs: 1500,
  /** Below this many pages start-up dominates: seconds per 1,000 pages is estimated from the render time per page. */
  buildMinPagesToJudge: 100,
};
export type Budgets = typeof BUDGETS;

export type BudgetStatus = "PASS" | "FAIL" | "WARN";

/**
 * One budget's verdict. `offenders` lists the pages (and values) that miss it; `detail` is a
 * one-line summary.
 */
export interface BudgetResult {
  id: string;
  name: string;
  hard: boolean;
  status: BudgetStatus;
  detail: string;
  offenders: string[];
}

/**
 * What the budgets read of a page: tools/bench/analyze.ts's PageAnalysis, with `firstScreen` once
 * tools/bench/fold.ts measured it.
 */
export interface BudgetPage {
  path: string;
  marketing: boolean;
  html: { gzip: number };
  js: { gzip: number };
  jsEager: { gzip: number };
  directives: Readonly<Record<string, number>>;
  renderBlocking: readonly string[];
  blockingStylesheets: readonly string[];
  supabase: boolean;
  supabaseFiles: readonly string[];
  supabaseMentions: readonly string[];
  stripe: boolean;
  stripeFiles: readonly string[];
  problems: readonly string[];
  css?: { deferred: readonly unknown[]; withoutNoscript: readonly string[]; withoutLoader?: readonly string[] };
  firstScreen?: FirstScreenResult | null;
}

/** What the budgets read of a page's Lighthouse result (tools/bench/lighthouse.ts). */
export interface LighthouseRow {
  path: string;
  error?: string;
  scores?: Readonly<Partial<Record<string, number | null>>>;
  lcpMs?: number | null;
  tbtMs?: number | null;
  cls?: number | null;
}

/** The Lighthouse part of a report: a result per page, or why Lighthouse could not run. */
export interface LighthouseReport {
  results?: readonly LighthouseRow[];
  error?: string;
}

/** What the budgets read of the build's timing (scripts/bench.ts). */
export interface BuildTiming {
  seconds: number;
  pages: number;
  secondsPer1000Pages: number;
  estimated?: boolean;
}

export interface BenchReport {
  pages: readonly BudgetPage[];
  lighthouse?: LighthouseReport | null;
  build?: BuildTiming | null;
  portal?: PortalReport | null;
}

const kb = (bytes: number) => `${(bytes / KB).toFixed(1)} KB`;

/** One budget's verdict: PASS without offenders, else FAIL for a hard budget and WARN for a soft one. */
export function budgetEntry(id: string, name: string, hard: boolean, offenders: string[], detail: string): BudgetResult {
  return { id, name, hard, status: offenders.length === 0 ? "PASS" : hard ? "FAIL" : "WARN", detail, offenders };
}

type Add = (...entry: Parameters<typeof budgetEntry>) => void;

/** The item of a non-empty `list` with the highest `value` (the first of equals). */
function worst<T>(list: readonly [T, ...T[]], value: (item: T) => number): T {
  return list.reduce((a, b) => (value(b) > value(a) ? b : a), list[0]);
}

const nonEmpty = <T>(list: readonly T[]): list is readonly [T, ...T[]] => list.length > 0;

/** A page's first screen when it was measured, else null. */
const screenOf = (page: BudgetPage) => (page.firstScreen && !("error" in page.firstScreen) ? page.firstScreen : null);

/** One entry per budget; see BudgetResult. */
export function checkBudgets(
  { pages, lighthouse = null, build = null, portal = null }: BenchReport,
  budgets: Budgets = BUDGETS,
): BudgetResult[] {
  const results: BudgetResult[] = [];
  const add: Add = (...args) => results.push(budgetEntry(...args));
  const marketing = pages.filter((p) => p.marketing);

  if (nonEmpty(marketing)) {
    const heaviest = worst(marketing, (p) => p.js.gzip);
    add(
      "js-gzip",
      `JS on load <= ${kb(budgets.jsGzip)} gzip (marketing pages, every island counted)`,
      true,
      marketing.filter((p) => p.js.gzip > budgets.jsGzip).map((p) => `${p.path} ${kb(p.js.gzip)}`),
      `max ${kb(heaviest.js.gzip)} on ${heaviest.path}`,
    );
    const eagerest = worst(marketing, (p) => p.jsEager.gzip);
    add(
      "js-eager-aim",
      `JS before scroll/interaction <= ${kb(budgets.jsEagerGzipAim)} gzip (aim; load/idle islands and scripts)`,
      false,
      marketing.filter((p) => p.jsEager.gzip > budgets.jsEagerGzipAim).map((p) => `${p.path} ${kb(p.jsEager.gzip)}`),
      `max ${kb(eagerest.jsEager.gzip)} on ${eagerest.path}`,
    );
    add(
      "supabase",
      "no supabase-js code on marketing pages",
      true,
      marketing.filter((p) => p.supabase).map((p) => `${p.path} (${p.supabaseFiles.join(", ")})`),
      `${marketing.length} marketing page(s) checked`,
    );
    add(
      "supabase-mention",
      'no "supabase" string in marketing-page JS outside supabase-js code',
      false,
      marketing.filter((p) => p.supabaseMentions.length).map((p) => `${p.path}: ${p.supabaseMentions[0]}`),
      "",
    );
    add(
      "stripe",
      "no Stripe.js on marketing pages",
      true,
      marketing.filter((p) => p.stripe).map((p) => `${p.path} (${p.stripeFiles.join(", ")})`),
      "",
    );
    add(
      "directives",
      "islands hydrate on idle or visible (no client:load / client:only on marketing pages)",
      false,
      marketing
        .filter((p) => p.directives.load || p.directives.only)
        .map((p) => `${p.path} ${Object.entries(p.directives).map(([d, n]) => `${d}:${n}`).join(" ")}`),
      "",
    );
  }
  add(
    "render-blocking",
    "no render-blocking script",
    true,
    pages.filter((p) => p.renderBlocking.length).map((p) => `${p.path} (${p.renderBlocking.join(", ")})`),
    `${pages.length} page(s) checked`,
  );
  add(
    "blocking-css",
    "critical CSS inlined (no stylesheet link in <head>)",
    false,
    pages.filter((p) => p.blockingStylesheets.length).map((p) => `${p.path} (${p.blockingStylesheets.join(", ")})`),
    "",
  );
  const deferring = pages.flatMap((p) => (p.css?.deferred.length ? [{ path: p.path, css: p.css }] : []));
  if (deferring.length)
    add(
      "css-noscript",
      "every stylesheet loaded without blocking has a <noscript> link (the page is styled without JavaScript)",
      true,
      deferring
        .filter((p) => p.css.withoutNoscript.length)
        .map((p) => `${p.path} (${p.css.withoutNoscript.join(", ")})`),
      `${deferring.length} page(s) defer their stylesheets`,
    );
  if (deferring.length)
    add(
      "css-loader",
      "every stylesheet left in <noscript data-href> is loaded by the page's script (the page is styled with JavaScript)",
      true,
      deferring.flatMap((p) => (p.css.withoutLoader?.length ? [`${p.path} (${p.css.withoutLoader.join(", ")})`] : [])),
      "",
    );
  if (nonEmpty(pages)) {
    const biggest = worst(pages, (p) => p.html.gzip);
    add(
      "html-gzip",
      `HTML <= ${kb(budgets.htmlGzip)} gzip (where the content allows)`,
      false,
      pages.filter((p) => p.html.gzip > budgets.htmlGzip).map((p) => `${p.path} ${kb(p.html.gzip)}`),
      `max ${kb(biggest.html.gzip)} on ${biggest.path}`,
    );
  }
  const folded = pages.flatMap((p) => {
    const screen = screenOf(p);
    return screen ? [{ path: p.path, screen }] : [];
  });
  if (nonEmpty(folded)) {
    const largest = worst(folded, (p) => p.screen.gzip);
    add(
      "first-screen",
      `first screen <= ${kb(budgets.firstScreenGzip)} gzip (head, critical CSS and the blocks above the fold at 412 x 823)`,
      true,
      folded
        .filter((p) => p.screen.gzip > budgets.firstScreenGzip)
        .map((p) => `${p.path} ${kb(p.screen.gzip)} (ends at ${p.screen.at})`),
      `max ${kb(largest.screen.gzip)} on ${largest.path}`,
    );
  }
  const unfolded = pages.flatMap((p) =>
    p.firstScreen && "error" in p.firstScreen ? [`${p.path}: ${p.firstScreen.error}`] : [],
  );
  if (unfolded.length)
    add("first-screen-measured", "the first screen of every page was measured", false, unfolded, "");
  add(
    "missing-js",
    "every script a page names exists in dist/",
    false,
    pages.filter((p) => p.problems.length).map((p) => `${p.path}: ${p.problems.join("; ")}`),
    "",
  );

  if (lighthouse) {
    checkLighthouse(lighthouse, add, budgets);
    // The Lighthouse budgets hold for every marketing page: say so when some were not measured.
    const measured = new Set((lighthouse.results ?? []).map((r) => r.path));
    const marketingPages = pages.filter((p) => p.marketing && p.path !== "/404" && p.path !== "/500");
    if (marketingPages.length)
      add(
        "lighthouse-coverage",
        "Lighthouse measured every marketing page (--pages all)",
        false,
        marketingPages.filter((p) => !measured.has(p.path)).map((p) => p.path),
        `${marketingPages.filter((p) => measured.has(p.path)).length} of ${marketingPages.length}`,
      );
  }

  if (build) {
    const per = build.secondsPer1000Pages;
    add(
      "build",
      `build <= ${budgets.buildSecondsPer1000Pages} s per 1,000 pages`,
      false,
      per > budgets.buildSecondsPer1000Pages ? [`${per} s per 1,000 pages${build.estimated ? " (estimated)" : ""}`] : [],
      `${build.seconds} s for ${build.pages} pages; ${per} s per 1,000 pages` +
        (build.estimated ? " estimated from the time per rendered page" : ""),
    );
  }
  if (portal) results.push(...checkPortal(portal, budgets));
  return results;
}

/** The failed runs of a measurement, as offenders. */
const failedRuns = (measurement: PortalMeasurement) =>
  measurement.perRun.flatMap((r) => ("error" in r ? [`a run failed: ${r.error}`] : []));

/**
 * The portal's time-to-data (tools/bench/portal.ts's result): over the budget warns; a portal
 * that could not be measured (no mark, wrong data, no browser) fails; no portal page yet warns.
 */
export function checkPortal(portal: PortalReport, budgets: Budgets = BUDGETS): BudgetResult[] {
  const limit = budgets.portalTimeToDataMs;
  if ("skipped" in portal)
    return [budgetEntry("portal-measured", `portal time-to-data measured on ${portal.path}`, false, [portal.skipped], "")];
  if (portal.error !== undefined)
    return [budgetEntry("portal-measured", `portal time-to-data measured on ${portal.path}`, true, [portal.error], "")];
  const failed = failedRuns(portal);
  return [
    budgetEntry(
      "portal-time-to-data",
      `portal time-to-data <= ${limit} ms (${portal.path}, cold, signed in, mobile throttling, median)`,
      false,
      [...(portal.medianMs > limit ? [`${portal.path} ${portal.medianMs} ms`] : []), ...failed],
      `${portal.medianMs} ms, median of ${portal.runs - portal.failedRuns} run(s)` +
        (portal.failedRuns ? `; ${portal.failedRuns} failed` : ""),
    ),
    ...(portal.lesson ? checkLesson(portal.lesson, budgets) : []),
    ...(portal.desk ? checkDesk(portal.desk, budgets) : []),
  ];
}

/**
 * A lesson's time-to-content (tools/bench/portal.ts's `lesson`): over the budget warns; a lesson
 * that could not be measured fails.
 */
export function checkLesson(lesson: PortalMeasurement, budgets: Budgets = BUDGETS): BudgetResult[] {
  return checkTimed(lesson, "lesson-time-to-content", "lesson time-to-content", budgets.lessonTimeToContentMs);
}

/**
 * The desk's time-to-data (tools/bench/portal.ts's `desk`), on the bench's large data set: over
 * the budget warns; a desk that could not be measured fails.
 */
export function checkDesk(desk: PortalMeasurement, budgets: Budgets = BUDGETS): BudgetResult[] {
  return checkTimed(desk, "desk-time-to-data", "desk time-to-data", budgets.deskTimeToDataMs);
}

/** One timed page against its limit: `<id>`, or `<page>-measured` when no run succeeded. */
function checkTimed(measured: PortalMeasurement, id: string, what: string, limit: number): BudgetResult[] {
  const name = `${what} <= ${limit} ms (${measured.path}, cold, signed in, mobile throttling, median)`;
  if (measured.error !== undefined)
    return [budgetEntry(id.replace(/-time-to-.*$/, "-measured"), name, true, [measured.error], "")];
  const failed = failedRuns(measured);
  return [
    budgetEntry(
      id,
      name,
      false,
      [...(measured.medianMs > limit ? [`${measured.path} ${measured.medianMs} ms`] : []), ...failed],
      `${measured.medianMs} ms, median of ${measured.runs - measured.failedRuns} run(s)` +
        (measured.failedRuns ? `; ${measured.failedRuns} failed` : ""),
    ),
  ];
}

type Measured = number | null | undefined;

/** "/ 100, /dmca 100" for a few pages; "max 51 ms on /transformation (19 pages)" for more. */
function summary(
  rows: readonly [LighthouseRow, ...LighthouseRow[]],
  value: (row: LighthouseRow) => Measured,
  unit: string,
  which: "min" | "max",
) {
  if (rows.length <= 3) return rows.map((r) => `${r.path} ${value(r)}${unit}`).join(", ");
  // Compared as JavaScript compares them: a missing score (null) as 0, an absent one never.
  const n = (row: LighthouseRow) => Number(value(row));
  const pick = rows.reduce((a, b) => ((which === "max" ? n(b) > n(a) : n(b) < n(a)) ? b : a));
  return `${which} ${value(pick)}${unit} on ${pick.path} (${rows.length} pages)`;
}

/** Scores and metrics of the pages Lighthouse measured; a run that could not happen fails. */
function checkLighthouse(lighthouse: LighthouseReport, add: Add, budgets: Budgets) {
  if (lighthouse.error) add("lighthouse", "Lighthouse ran", true, [lighthouse.error], "");
  const rows = lighthouse.results ?? [];
  const failed = rows.filter((r) => r.error);
  if (failed.length)
    add("lighthouse-runs", "Lighthouse ran on every page", true, failed.map((r) => `${r.path}: ${r.error}`), "");
  const ok = rows.filter((r) => !r.error);
  if (!nonEmpty(ok)) return; // Nothing measured, nothing to pass.
  for (const [category, min] of Object.entries(budgets.lighthouse)) {
    const score = (r: LighthouseRow) => r.scores?.[category];
    add(
      `lighthouse-${category}`,
      `Lighthouse ${category} >= ${min}`,
      true,
      ok
        .filter((r) => {
          const value = score(r);
          return !(typeof value === "number" && value >= min);
        })
        .map((r) => `${r.path} ${score(r) ?? "n/a"}`),
      summary(ok, score, "", "min"),
    );
  }
  const metric = (
    id: string,
    name: string,
    hard: boolean,
    key: "cls" | "tbtMs" | "lcpMs",
    limit: number,
    unit: string,
  ) =>
    add(
      id,
      `${name} <= ${limit}${unit}`,
      hard,
      ok
        .filter((r) => {
          const value = r[key];
          return !(typeof value === "number" && value <= limit);
        })
        .map((r) => `${r.path} ${r[key]}${unit}`),
      summary(ok, (r) => r[key], unit, "max"),
    );
  metric("cls", "CLS", true, "cls", budgets.cls, "");
  metric("tbt", "TBT", false, "tbtMs", budgets.tbtMs, " ms");
  metric("lcp", "LCP (simulated)", true, "lcpMs", budgets.lcpMs, " ms");
}

/** Exit code: 1 when a hard budget failed (unless told not to fail). */
export const exitCode = (results: readonly BudgetResult[], { noFail = false } = {}): number =>
  !noFail && results.some((r) => r.status === "FAIL") ? 1 : 0;
