// Pure helpers over Lighthouse results (LHR): what the bench keeps of a run, and which run is the median.

export const CATEGORIES = ["performance", "accessibility", "seo", "best-practices"];

/** The median of numbers; of an even count, the lower middle one (never a value no run had). */
export function median(values) {
  const sorted = values.filter((v) => typeof v === "number" && !Number.isNaN(v)).sort((a, b) => a - b);
  if (!sorted.length) return null;
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * The run to report metrics from: one whose performance score is the median; among several,
 * the one whose LCP is nearest the median LCP of those (then the lower TBT).
 */
export function pickMedianRun(runs) {
  if (!runs.length) return null;
  const perf = median(runs.map((r) => r.scores.performance));
  const candidates = runs.filter((r) => r.scores.performance === perf);
  const pool = candidates.length ? candidates : runs;
  const lcp = median(pool.map((r) => r.lcpMs));
  return [...pool].sort((a, b) => Math.abs(a.lcpMs - lcp) - Math.abs(b.lcpMs - lcp) || a.tbtMs - b.tbtMs)[0];
}

/** The first DOM node a Lighthouse details object names, as "selector" (for the LCP element). */
function firstNode(details) {
  if (!details || typeof details !== "object") return null;
  if (details.type === "node") return details.selector || details.snippet || null;
  for (const value of Object.values(details)) {
    const found = Array.isArray(value) ? value.map(firstNode).find(Boolean) : firstNode(value);
    if (found) return found;
  }
  return null;
}

const score = (category) => (category && typeof category.score === "number" ? Math.round(category.score * 100) : null);
const ms = (audit) => (typeof audit?.numericValue === "number" ? Math.round(audit.numericValue) : null);

/** The numbers the bench keeps from one Lighthouse result (LHR). */
export function summarizeLhr(lhr) {
  const scores = Object.fromEntries(CATEGORIES.map((id) => [id === "best-practices" ? "bestPractices" : id, score(lhr.categories?.[id])]));
  // What costs points: weighted audits under a perfect score, per category below 100.
  /** @type {Record<string, string[]>} */
  const findings = {};
  for (const id of CATEGORIES) {
    const category = lhr.categories?.[id];
    if (!category || category.score === 1) continue;
    findings[id] = category.auditRefs
      .filter((ref) => ref.weight > 0)
      .map((ref) => lhr.audits[ref.id])
      .filter((audit) => audit && typeof audit.score === "number" && audit.score < 1)
      .map((audit) => `${audit.id}${audit.displayValue ? ` (${audit.displayValue})` : ""}: ${audit.title}`);
  }
  const cls = lhr.audits?.["cumulative-layout-shift"]?.numericValue;
  return {
    scores,
    fcpMs: ms(lhr.audits?.["first-contentful-paint"]),
    lcpMs: ms(lhr.audits?.["largest-contentful-paint"]),
    tbtMs: ms(lhr.audits?.["total-blocking-time"]),
    cls: typeof cls === "number" ? Number(cls.toFixed(4)) : null,
    speedIndexMs: ms(lhr.audits?.["speed-index"]),
    lcpElement: firstNode(lhr.audits?.["lcp-breakdown-insight"]?.details),
    findings,
    // Lighthouse's CPU benchmark of this machine; below ~1000 its simulated metrics grow less trustworthy.
    benchmarkIndex: typeof lhr.environment?.benchmarkIndex === "number" ? Math.round(lhr.environment.benchmarkIndex) : null,
    runtimeError: lhr.runtimeError ? `${lhr.runtimeError.code}: ${lhr.runtimeError.message}` : null,
    warnings: lhr.runWarnings ?? [],
  };
}
