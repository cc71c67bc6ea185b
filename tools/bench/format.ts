// Plain-text tables and lines for the bench report (no colours: the output is also pasted into PRs).
import type { PageAnalysis, SiteJsFile } from "./analyze.ts";
import { type BudgetResult, KB } from "./budgets.ts";
import type { LighthousePageResult } from "./lighthouse.ts";
import type { PortalMeasurement, PortalReport } from "./portal.ts";

export const kb = (bytes: number): string => (bytes / KB).toFixed(1);

/** A table column: the row key it shows, its heading, and its alignment when not the default. */
export interface Column<K extends string = string> {
  key: K;
  title: string;
  align?: "left" | "right";
}

/** A value in a table: printed with String(), "-" when null or undefined. */
export type Cell = string | number | boolean | null | undefined;

/**
 * A fixed-width table of `rows`, objects keyed by the columns' keys. Numbers align right unless
 * told otherwise.
 */
export function formatTable<K extends string>(
  columns: readonly Column<K>[],
  rows: readonly Partial<Record<K, Cell>>[],
): string {
  const cells = rows.map((row) =>
    columns.map((c) => {
      const value = row[c.key];
      return value === undefined || value === null ? "-" : String(value);
    }),
  );
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const right = columns.map((c, i) =>
    c.align
      ? c.align === "right"
      : rows.some((row) => typeof row[c.key] === "number") || cells.every((r) => /^-?[\d.]+$|^-$/.test(r[i] ?? "")),
  );
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (right[i] ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.title)), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(line)].join(
    "\n",
  );
}

/** "idle:1 visible:2", or "-" without islands. */
export const formatDirectives = (directives: Readonly<Record<string, number>>): string =>
  Object.entries(directives)
    .map(([name, n]) => `${name}:${n}`)
    .join(" ") || "-";

export function pagesTable(pages: readonly PageAnalysis[]): string {
  return formatTable(
    [
      { key: "path", title: "page" },
      { key: "htmlRaw", title: "HTML KB" },
      { key: "htmlGzip", title: "gzip" },
      { key: "jsRaw", title: "JS KB" },
      { key: "jsGzip", title: "gzip" },
      { key: "eager", title: "at once gz" },
      { key: "later", title: "on view gz" },
      { key: "islands", title: "islands" },
      { key: "directives", title: "directives" },
      { key: "blocking", title: "blocking" },
      { key: "supabase", title: "supabase" },
    ],
    pages.map((p) => ({
      path: p.marketing ? p.path : `${p.path} (app)`,
      htmlRaw: kb(p.html.raw),
      htmlGzip: kb(p.html.gzip),
      jsRaw: kb(p.js.raw),
      jsGzip: kb(p.js.gzip),
      eager: kb(p.jsEager.gzip),
      later: kb(p.jsLater.gzip),
      islands: p.islands,
      directives: formatDirectives(p.directives),
      blocking: p.renderBlocking.length ? "YES" : "no",
      supabase: p.supabase ? "YES" : p.supabaseMentions.length ? "mention" : "no",
    })),
  );
}

/**
 * Per page: the HTML sent, the CSS in it (all <style>, of which the critical CSS) and the CSS
 * loaded without blocking, and the first screen: gzip bytes of the HTML before the first block
 * below the fold, and which block that is ("end": the whole page fits the screen).
 */
export function firstScreenTable(pages: readonly PageAnalysis[], limit: number): string {
  return formatTable(
    [
      { key: "path", title: "page" },
      { key: "html", title: "HTML gz" },
      { key: "inlineCss", title: "inline CSS gz" },
      { key: "critical", title: "of which critical" },
      { key: "deferred", title: "deferred CSS gz" },
      { key: "first", title: "first screen gz" },
      { key: "at", title: "first block below the fold", align: "left" },
      { key: "flag", title: "check", align: "left" },
    ],
    pages.map((p) => {
      const screen = p.firstScreen;
      const measured = screen && !("error" in screen) ? screen : null;
      return {
        path: p.path,
        html: kb(p.html.gzip),
        inlineCss: kb(p.css.inline.gzip),
        critical: kb(p.css.critical.gzip),
        deferred: kb(p.css.deferred.reduce((n, f) => n + f.gzip, 0)),
        first: measured ? kb(measured.gzip) : null,
        at: measured
          ? `${measured.at}${measured.tag ? ` <${measured.tag}>` : ""}`
          : screen && "error" in screen
            ? `not measured: ${screen.error}`
            : "not measured",
        flag: !measured ? null : measured.gzip > limit ? `over ${kb(limit)} KB` : "ok",
      };
    }),
  );
}

export function jsFilesTable(jsFiles: readonly SiteJsFile[], pageCount: number): string {
  return formatTable(
    [
      { key: "path", title: "file" },
      { key: "raw", title: "KB" },
      { key: "gzip", title: "gzip" },
      { key: "pages", title: "pages" },
    ],
    jsFiles.map((f) => ({ path: f.path, raw: kb(f.raw), gzip: kb(f.gzip), pages: `${f.pages}/${pageCount}` })),
  );
}

export function lighthouseTable(results: readonly LighthousePageResult[]): string {
  return formatTable(
    [
      { key: "path", title: "page" },
      { key: "performance", title: "perf" },
      { key: "accessibility", title: "a11y" },
      { key: "seo", title: "SEO" },
      { key: "bestPractices", title: "best pr." },
      { key: "fcpMs", title: "FCP ms" },
      { key: "lcpMs", title: "LCP ms" },
      { key: "tbtMs", title: "TBT ms" },
      { key: "cls", title: "CLS" },
      { key: "runs", title: "perf per run", align: "left" },
    ],
    results.map((r) =>
      r.error !== undefined
        ? { path: r.path, runs: `failed: ${r.error}` }
        : {
            path: r.path,
            ...r.scores,
            fcpMs: r.fcpMs,
            lcpMs: r.lcpMs,
            tbtMs: r.tbtMs,
            cls: r.cls,
            runs: r.performanceRuns.join(" ") + (r.failedRuns ? ` (${r.failedRuns} failed)` : ""),
          },
    ),
  );
}

export function budgetLines(results: readonly BudgetResult[]): string {
  return results
    .map((r) => {
      const head = `${r.status.padEnd(4)}  ${r.name}${r.detail ? `  [${r.detail}]` : ""}`;
      const shown = r.offenders.slice(0, 12).map((o) => `        ${o}`);
      if (r.offenders.length > 12) shown.push(`        … and ${r.offenders.length - 12} more`);
      return r.status === "PASS" ? head : [head, ...shown].join("\n");
    })
    .join("\n");
}

/**
 * The portal's runs (tools/bench/portal.ts): time to the mark, requests and CORS preflights
 * started before it, JavaScript transferred (gzip, headers included) in all and by the mark, all
 * bytes transferred.
 */
export function portalTable(
  portal: Pick<PortalMeasurement, "perRun" | "medianMs">,
  measure = "time-to-data ms",
): string {
  return formatTable(
    [
      { key: "run", title: "run" },
      { key: "ms", title: measure },
      { key: "requests", title: "requests" },
      { key: "preflights", title: "preflights" },
      { key: "js", title: "JS KB gz" },
      { key: "jsByMark", title: "by the mark" },
      { key: "bytes", title: "all KB" },
      { key: "note", title: "note", align: "left" },
    ],
    portal.perRun.map((r, i) =>
      "error" in r
        ? { run: i + 1, note: `failed: ${r.error}` }
        : {
            run: i + 1,
            ms: r.ms,
            requests: r.requests,
            preflights: r.preflights,
            js: kb(r.jsBytes),
            jsByMark: kb(r.jsBytesBeforeMark),
            bytes: kb(r.bytes),
            note: r.ms === portal.medianMs ? "median" : "",
          },
    ),
  );
}

/** One line: the median against the budget, or why the portal (or the lesson: `what`) was not measured. */
export function portalLine(portal: PortalReport, limitMs: number, what = "to data"): string {
  if ("skipped" in portal) return `${portal.path}: not measured: ${portal.skipped}`;
  if (portal.error !== undefined) return `${portal.path}: FAILED: ${portal.error}`;
  return (
    `${portal.path}: ${portal.medianMs} ms ${what}, median of ${portal.runs - portal.failedRuns} run(s) ` +
    `(budget ${limitMs} ms); that run: ${portal.requests} requests and ${portal.preflights} preflights ` +
    `before the mark, ${kb(portal.jsBytes)} KB of JS transferred (${kb(portal.jsBytesBeforeMark)} KB by the mark)` +
    (portal.loadAverage
      ? `; load average ${portal.loadAverage.before} then ${portal.loadAverage.after} on ${portal.loadAverage.cores} cores`
      : "")
  );
}
