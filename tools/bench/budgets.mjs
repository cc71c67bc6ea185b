// The budgets of docs/architecture.md (section Budgets), checked against a bench report.
// A hard budget FAILs the run; a soft one WARNs.

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
   * screen arrives in the first round trip (tools/bench/fold.mjs).
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
   * under Lighthouse's mobile throttling applied for real (tools/bench/portal.mjs), median of the
   * runs. The spec's single-page app took 4.3 s on the same work.
   */
  portalTimeToDataMs: 2500,
  /**
   * A lesson page, from navigation to the lesson's body shown (fetched from the database once the
   * session is known), under the same conditions as the portal.
   */
  lessonTimeToContentMs: 2000,
  /** Below this many pages start-up dominates: seconds per 1,000 pages is estimated from the render time per page. */
  buildMinPagesToJudge: 100,
};

const kb = (bytes) => `${(bytes / KB).toFixed(1)} KB`;

/** One budget's verdict: PASS without offenders, else FAIL for a hard budget and WARN for a soft one. */
export function budgetEntry(id, name, hard, offenders, detail) {
  return { id, name, hard, status: offenders.length === 0 ? "PASS" : hard ? "FAIL" : "WARN", detail, offenders };
}

/**
 * One entry per budget: { id, name, status: PASS|FAIL|WARN, hard, detail, offenders }.
 * `offenders` lists the pages (and values) that miss it; `detail` is a one-line summary.
 * @param {{ pages: any[], lighthouse?: any, build?: any, portal?: any }} report
 * @param {typeof BUDGETS} [budgets]
 */
export function checkBudgets({ pages, lighthouse = null, build = null, portal = null }, budgets = BUDGETS) {
  const results = [];
  const add = (...args) => results.push(budgetEntry(...args));
  const marketing = pages.filter((p) => p.marketing);
  const worst = (list, value) => list.reduce((a, b) => (value(b) > value(a) ? b : a), list[0]);

  if (marketing.length) {
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
  const deferring = pages.filter((p) => p.css?.deferred.length);
  if (deferring.length)
    add(
      "css-noscript",
      "every stylesheet loaded without blocking has a <noscript> link (the page is styled without JavaScript)",
      true,
      deferring.filter((p) => p.css.withoutNoscript.length).map((p) => `${p.path} (${p.css.withoutNoscript.join(", ")})`),
      `${deferring.length} page(s) defer their stylesheets`,
    );
  if (deferring.length)
    add(
      "css-loader",
      "every stylesheet left in <noscript data-href> is loaded by the page's script (the page is styled with JavaScript)",
      true,
      deferring.filter((p) => p.css.withoutLoader?.length).map((p) => `${p.path} (${p.css.withoutLoader.join(", ")})`),
      "",
    );
  if (pages.length) {
    const biggest = worst(pages, (p) => p.html.gzip);
    add(
      "html-gzip",
      `HTML <= ${kb(budgets.htmlGzip)} gzip (where the content allows)`,
      false,
      pages.filter((p) => p.html.gzip > budgets.htmlGzip).map((p) => `${p.path} ${kb(p.html.gzip)}`),
      `max ${kb(biggest.html.gzip)} on ${biggest.path}`,
    );
  }
  const folded = pages.filter((p) => p.firstScreen && !p.firstScreen.error);
  if (folded.length) {
    const largest = worst(folded, (p) => p.firstScreen.gzip);
    add(
      "first-screen",
      `first screen <= ${kb(budgets.firstScreenGzip)} gzip (head, critical CSS and the blocks above the fold at 412 x 823)`,
      false,
      folded
        .filter((p) => p.firstScreen.gzip > budgets.firstScreenGzip)
        .map((p) => `${p.path} ${kb(p.firstScreen.gzip)} (ends at ${p.firstScreen.at})`),
      `max ${kb(largest.firstScreen.gzip)} on ${largest.path}`,
    );
  }
  const unfolded = pages.filter((p) => p.firstScreen?.error);
  if (unfolded.length)
    add(
      "first-screen-measured",
      "the first screen of every page was measured",
      false,
      unfolded.map((p) => `${p.path}: ${p.firstScreen.error}`),
      "",
    );
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

/**
 * The portal's time-to-data (tools/bench/portal.mjs's result): over the budget warns; a portal
 * that could not be measured (no mark, wrong data, no browser) fails; no portal page yet warns.
 * @param {any} portal
 * @param {typeof BUDGETS} [budgets]
 */
export function checkPortal(portal, budgets = BUDGETS) {
  const limit = budgets.portalTimeToDataMs;
  if (portal.skipped)
    return [budgetEntry("portal-measured", `portal time-to-data measured on ${portal.path}`, false, [portal.skipped], "")];
  if (portal.error)
    return [budgetEntry("portal-measured", `portal time-to-data measured on ${portal.path}`, true, [portal.error], "")];
  const failed = portal.perRun.filter((r) => r.error).map((r) => `a run failed: ${r.error}`);
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
  ];
}

/**
 * A lesson's time-to-content (tools/bench/portal.mjs's `lesson`): over the budget warns; a lesson
 * that could not be measured fails.
 * @param {any} lesson
 * @param {typeof BUDGETS} [budgets]
 */
export function checkLesson(lesson, budgets = BUDGETS) {
  const limit = budgets.lessonTimeToContentMs;
  const name = `lesson time-to-content <= ${limit} ms (${lesson.path}, cold, signed in, mobile throttling, median)`;
  if (lesson.error) return [budgetEntry("lesson-measured", name, true, [lesson.error], "")];
  const failed = lesson.perRun.filter((r) => r.error).map((r) => `a run failed: ${r.error}`);
  return [
    budgetEntry(
      "lesson-time-to-content",
      name,
      false,
      [...(lesson.medianMs > limit ? [`${lesson.path} ${lesson.medianMs} ms`] : []), ...failed],
      `${lesson.medianMs} ms, median of ${lesson.runs - lesson.failedRuns} run(s)` +
        (lesson.failedRuns ? `; ${lesson.failedRuns} failed` : ""),
    ),
  ];
}

/** "/ 100, /dmca 100" for a few pages; "max 51 ms on /transformation (19 pages)" for more. */
function summary(rows, value, unit, which) {
  if (rows.length <= 3) return rows.map((r) => `${r.path} ${value(r)}${unit}`).join(", ");
  const pick = rows.reduce((a, b) => ((which === "max" ? value(b) > value(a) : value(b) < value(a)) ? b : a));
  return `${which} ${value(pick)}${unit} on ${pick.path} (${rows.length} pages)`;
}

/** Scores and metrics of the pages Lighthouse measured; a run that could not happen fails. */
function checkLighthouse(lighthouse, add, budgets) {
  if (lighthouse.error) add("lighthouse", "Lighthouse ran", true, [lighthouse.error], "");
  const rows = lighthouse.results ?? [];
  const failed = rows.filter((r) => r.error);
  if (failed.length)
    add("lighthouse-runs", "Lighthouse ran on every page", true, failed.map((r) => `${r.path}: ${r.error}`), "");
  const ok = rows.filter((r) => !r.error);
  if (!ok.length) return; // Nothing measured, nothing to pass.
  for (const [category, min] of Object.entries(budgets.lighthouse)) {
    add(
      `lighthouse-${category}`,
      `Lighthouse ${category} >= ${min}`,
      true,
      ok.filter((r) => !(typeof r.scores[category] === "number" && r.scores[category] >= min)).map((r) => `${r.path} ${r.scores[category] ?? "n/a"}`),
      summary(ok, (r) => r.scores[category], "", "min"),
    );
  }
  const metric = (id, name, hard, key, limit, unit) =>
    add(
      id,
      `${name} <= ${limit}${unit}`,
      hard,
      ok.filter((r) => !(typeof r[key] === "number" && r[key] <= limit)).map((r) => `${r.path} ${r[key]}${unit}`),
      summary(ok, (r) => r[key], unit, "max"),
    );
  metric("cls", "CLS", true, "cls", budgets.cls, "");
  metric("tbt", "TBT", false, "tbtMs", budgets.tbtMs, " ms");
  metric("lcp", "LCP (simulated)", false, "lcpMs", budgets.lcpMs, " ms");
}

/** Exit code: 1 when a hard budget failed (unless told not to fail). */
export const exitCode = (results, { noFail = false } = {}) =>
  !noFail && results.some((r) => r.status === "FAIL") ? 1 : 0;
