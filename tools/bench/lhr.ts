// Pure helpers over Lighthouse results (LHR): what the bench keeps of a run, and which run is the median.

export const CATEGORIES = ["performance", "accessibility", "seo", "best-practices"];

/**
 * The parts of a Lighthouse result (LHR) the bench reads, each optional as summarizeLhr treats it;
 * lighthouse's own `Result` type fits it.
 */
export interface Lhr {
  categories?: Readonly<Record<string, LhrCategory | undefined>>;
  audits?: Readonly<Record<string, LhrAudit | undefined>>;
  environment?: { benchmarkIndex?: number };
  runtimeError?: { code: string; message: string };
  runWarnings?: readonly string[];
}
export interface LhrCategory {
  score: number | null;
  auditRefs: readonly { id: string; weight: number }[];
}
export interface LhrAudit {
  id?: string;
  title?: string;
  score?: number | null;
  numericValue?: number;
  displayValue?: string;
  details?: unknown;
}

/** Scores out of 100 by category (best-practices as bestPractices); null when Lighthouse gave none. */
export type Scores = Record<"performance" | "accessibility" | "seo" | "bestPractices", number | null>;

/** The numbers the bench keeps from one Lighthouse run. */
export interface LhrSummary {
  scores: Scores;
  fcpMs: number | null;
  lcpMs: number | null;
  tbtMs: number | null;
  cls: number | null;
  speedIndexMs: number | null;
  lcpElement: string | null;
  /** Per category below 100: the weighted audits under a perfect score, as "id (value): title". */
  findings: Record<string, string[]>;
  benchmarkIndex: number | null;
  runtimeError: string | null;
  warnings: readonly string[];
}

/** The median of numbers; of an even count, the lower middle one (never a value no run had). */
export function median(values: readonly (number | null | undefined)[]): number | null {
  const sorted = values
    .filter((v): v is number => typeof v === "number" && !Number.isNaN(v))
    .sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? null;
}

/** What pickMedianRun compares of a run. */
export interface RunMetrics {
  scores: { performance: number | null };
  lcpMs: number | null;
  tbtMs: number | null;
}

/**
 * The run to report metrics from: one whose performance score is the median; among several,
 * the one whose LCP is nearest the median LCP of those (then the lower TBT).
 */
export function pickMedianRun<R extends RunMetrics>(runs: readonly R[]): R | null {
  if (!runs.length) return null;
  const perf = median(runs.map((r) => r.scores.performance));
  const candidates = runs.filter((r) => r.scores.performance === perf);
  const pool = candidates.length ? candidates : runs;
  const lcp = median(pool.map((r) => r.lcpMs));
  // A missing metric subtracts as JavaScript does: null as 0.
  const distance = (r: R) => Math.abs(Number(r.lcpMs) - Number(lcp));
  return [...pool].sort((a, b) => distance(a) - distance(b) || Number(a.tbtMs) - Number(b.tbtMs))[0] ?? null;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/** The first DOM node a Lighthouse details object names, as "selector" (for the LCP element). */
function firstNode(details: unknown): string | null {
  if (!isObject(details)) return null;
  if (details.type === "node") {
    const { selector, snippet } = details;
    return (typeof selector === "string" && selector) || (typeof snippet === "string" && snippet) || null;
  }
  for (const value of Object.values(details)) {
    const found = Array.isArray(value) ? value.map(firstNode).find(Boolean) : firstNode(value);
    if (found) return found;
  }
  return null;
}

const score = (category: LhrCategory | undefined) =>
  category && typeof category.score === "number" ? Math.round(category.score * 100) : null;
const ms = (audit: LhrAudit | undefined) =>
  typeof audit?.numericValue === "number" ? Math.round(audit.numericValue) : null;

/** The numbers the bench keeps from one Lighthouse result (LHR). */
export function summarizeLhr(lhr: Lhr): LhrSummary {
  const scores: Scores = {
    performance: score(lhr.categories?.performance),
    accessibility: score(lhr.categories?.accessibility),
    seo: score(lhr.categories?.seo),
    bestPractices: score(lhr.categories?.["best-practices"]),
  };
  // What costs points: weighted audits under a perfect score, per category below 100.
  const findings: Record<string, string[]> = {};
  for (const id of CATEGORIES) {
    const category = lhr.categories?.[id];
    if (!category || category.score === 1) continue;
    findings[id] = category.auditRefs
      .filter((ref) => ref.weight > 0)
      .map((ref) => lhr.audits?.[ref.id])
      .filter((audit): audit is LhrAudit => !!audit && typeof audit.score === "number" && audit.score < 1)
      .map((audit) => `${audit.id}${audit.displayValue ? ` (${audit.displayValue})` : ""}: ${audit.title}`);
  }
  const cls = lhr.audits?.["cumulative-layout-shift"]?.numericValue;
  const benchmarkIndex = lhr.environment?.benchmarkIndex;
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
    benchmarkIndex: typeof benchmarkIndex === "number" ? Math.round(benchmarkIndex) : null,
    runtimeError: lhr.runtimeError ? `${lhr.runtimeError.code}: ${lhr.runtimeError.message}` : null,
    warnings: lhr.runWarnings ?? [],
  };
}
