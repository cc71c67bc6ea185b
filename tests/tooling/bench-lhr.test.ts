import { describe, expect, it } from "vitest";
import { median, pickMedianRun, summarizeLhr } from "../../tools/bench/lhr.ts";

const run = (performance: number, lcpMs: number, tbtMs = 0) => ({
  scores: { performance, accessibility: 100, seo: 100, bestPractices: 100 },
  lcpMs,
  tbtMs,
});

describe("bench Lighthouse helpers", () => {
  it("takes the lower middle value as the median", () => {
    expect(median([100, 97, 99])).toBe(99);
    expect(median([100, 98])).toBe(98);
    expect(median([])).toBeNull();
  });

  it("reports the run with the median performance score, nearest the median LCP among ties", () => {
    expect(pickMedianRun([run(100, 900), run(97, 1500), run(99, 1000)])?.lcpMs).toBe(1000);
    expect(pickMedianRun([run(100, 700), run(100, 900), run(100, 1200)])?.lcpMs).toBe(900);
    expect(pickMedianRun([])).toBeNull();
  });

  it("keeps scores, metrics and what costs points from a Lighthouse result", () => {
    const lhr = {
      categories: {
        performance: { score: 1, auditRefs: [] },
        accessibility: {
          score: 0.96,
          auditRefs: [
            { id: "color-contrast", weight: 7 },
            { id: "aria-hidden", weight: 0 },
          ],
        },
        seo: { score: 1, auditRefs: [] },
        "best-practices": { score: null, auditRefs: [] },
      },
      audits: {
        "first-contentful-paint": { numericValue: 801.4 },
        "largest-contentful-paint": { numericValue: 912.6 },
        "total-blocking-time": { numericValue: 12.2 },
        "cumulative-layout-shift": { numericValue: 0.00123 },
        "color-contrast": { id: "color-contrast", score: 0, title: "Contrast is too low" },
        "aria-hidden": { id: "aria-hidden", score: 0, title: "unweighted" },
        "lcp-breakdown-insight": {
          details: { type: "list", items: [{ type: "table" }, { type: "node", selector: "h1.hero" }] },
        },
      },
    };
    const summary = summarizeLhr(lhr);
    expect(summary.scores).toEqual({ performance: 100, accessibility: 96, seo: 100, bestPractices: null });
    expect([summary.fcpMs, summary.lcpMs, summary.tbtMs, summary.cls]).toEqual([801, 913, 12, 0.0012]);
    expect(summary.findings.accessibility).toEqual(["color-contrast: Contrast is too low"]);
    expect(summary.lcpElement).toBe("h1.hero");
  });
});
