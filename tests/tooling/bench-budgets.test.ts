import { describe, expect, it } from "vitest";
import { checkBudgets, exitCode } from "../../tools/bench/budgets.ts";

const KB = 1024;
function page(path: string, overrides: Record<string, unknown> = {}) {
  return {
    path,
    marketing: !path.startsWith("/portal"),
    html: { raw: 40 * KB, gzip: 10 * KB },
    js: { raw: 10 * KB, gzip: 5 * KB, files: [] },
    jsEager: { raw: 10 * KB, gzip: 5 * KB },
    jsLater: { raw: 0, gzip: 0 },
    islands: 0,
    directives: {},
    renderBlocking: [],
    blockingStylesheets: [],
    supabase: false,
    supabaseFiles: [],
    supabaseMentions: [],
    stripe: false,
    stripeFiles: [],
    problems: [],
    ...overrides,
  };
}
const lhRow = (path: string, overrides: Record<string, unknown> = {}) => ({
  path,
  scores: { performance: 100, accessibility: 100, seo: 100, bestPractices: 100 },
  lcpMs: 800,
  tbtMs: 10,
  cls: 0,
  ...overrides,
});
const status = (results: { id: string; status: string }[], id: string) => results.find((r) => r.id === id)?.status;

describe("bench budgets", () => {
  it("passes a light page", () => {
    const results = checkBudgets({ pages: [page("/")], lighthouse: { results: [lhRow("/")] } });
    expect(results.filter((r) => r.status !== "PASS")).toEqual([]);
    expect(exitCode(results)).toBe(0);
  });

  it("fails heavy JS, render-blocking scripts and supabase-js on marketing pages, not on app pages", () => {
    const results = checkBudgets({
      pages: [
        page("/", { js: { raw: 0, gzip: 76 * KB, files: [] } }),
        page("/dmca", { renderBlocking: ["/a.js"] }),
        page("/mindset", { supabase: true, supabaseFiles: ["/_astro/client.js"] }),
        page("/portal", {
          supabase: true,
          supabaseFiles: ["/_astro/sb.js"],
          js: { raw: 0, gzip: 120 * KB, files: [] },
        }),
      ],
    });
    expect(status(results, "js-gzip")).toBe("FAIL");
    expect(results.find((r) => r.id === "js-gzip")?.offenders).toEqual(["/ 76.0 KB"]);
    expect(status(results, "render-blocking")).toBe("FAIL");
    expect(results.find((r) => r.id === "supabase")?.offenders).toEqual(["/mindset (/_astro/client.js)"]);
    expect(exitCode(results)).toBe(1);
    expect(exitCode(results, { noFail: true })).toBe(0);
  });

  it("only warns on big HTML and slow TBT; fails on Lighthouse scores, CLS and LCP", () => {
    const warnOnly = checkBudgets({
      pages: [page("/", { html: { raw: 0, gzip: 20 * KB } })],
      lighthouse: { results: [lhRow("/", { tbtMs: 80 })] },
    });
    expect(status(warnOnly, "html-gzip")).toBe("WARN");
    expect(status(warnOnly, "tbt")).toBe("WARN");
    expect(status(warnOnly, "lcp")).toBe("PASS");
    expect(exitCode(warnOnly)).toBe(0);

    const slow = checkBudgets({ pages: [page("/")], lighthouse: { results: [lhRow("/", { lcpMs: 901 })] } });
    expect(status(slow, "lcp")).toBe("FAIL");
    expect(exitCode(slow)).toBe(1);

    const failing = checkBudgets({
      pages: [page("/")],
      lighthouse: {
        results: [
          lhRow("/", { scores: { performance: 99, accessibility: 100, seo: 92, bestPractices: 80 }, cls: 0.02 }),
        ],
      },
    });
    expect(status(failing, "lighthouse-performance")).toBe("FAIL");
    expect(status(failing, "lighthouse-accessibility")).toBe("PASS");
    expect(status(failing, "lighthouse-seo")).toBe("FAIL");
    expect(status(failing, "cls")).toBe("FAIL");
    expect(exitCode(failing)).toBe(1);
  });

  it("fails when Lighthouse could not run, rather than passing unmeasured", () => {
    const results = checkBudgets({ pages: [page("/")], lighthouse: { results: [], error: "no browser" } });
    expect(status(results, "lighthouse")).toBe("FAIL");
    expect(status(results, "lighthouse-performance")).toBeUndefined();
    const oneFailed = checkBudgets({ pages: [page("/")], lighthouse: { results: [{ path: "/", error: "NO_FCP" }] } });
    expect(status(oneFailed, "lighthouse-runs")).toBe("FAIL");
    const unmeasured = checkBudgets({
      pages: [page("/")],
      lighthouse: { results: [lhRow("/", { tbtMs: null, cls: null })] },
    });
    expect(status(unmeasured, "tbt")).toBe("WARN");
    expect(status(unmeasured, "cls")).toBe("FAIL");
  });

  it("holds every marketing page to LCP 0.9 s, TBT 30 ms and CLS 0.01, and says which pages Lighthouse missed", () => {
    const results = checkBudgets({
      pages: [page("/"), page("/dmca"), page("/404"), page("/portal", { marketing: false })],
      lighthouse: { results: [lhRow("/", { lcpMs: 950, tbtMs: 31 }), lhRow("/dmca", { lcpMs: 900, cls: 0.011 })] },
    });
    expect(results.find((r) => r.id === "lcp")?.name).toBe("LCP (simulated) <= 900 ms");
    expect(results.find((r) => r.id === "lcp")?.offenders).toEqual(["/ 950 ms"]);
    expect(results.find((r) => r.id === "tbt")?.offenders).toEqual(["/ 31 ms"]);
    expect(status(results, "cls")).toBe("FAIL");
    expect(status(results, "lighthouse-coverage")).toBe("PASS"); // the 404 page and app pages are not asked for

    const onlyHome = checkBudgets({ pages: [page("/"), page("/dmca")], lighthouse: { results: [lhRow("/")] } });
    expect(status(onlyHome, "lighthouse-coverage")).toBe("WARN");
    expect(onlyHome.find((r) => r.id === "lighthouse-coverage")?.offenders).toEqual(["/dmca"]);
  });

  it("fails a first screen that needs more than 14 KB, and a deferred stylesheet that would never load", () => {
    const css = (withoutNoscript: string[] = [], withoutLoader: string[] = []) => ({
      inline: { raw: 0, gzip: 0 },
      critical: { raw: 0, gzip: 0 },
      deferred: [{ path: "/_astro/site.css", raw: 0, gzip: 0 }],
      withoutNoscript,
      withoutLoader,
    });
    const screen = (gzip: number) => ({ at: "main>1", tag: "section", index: 0, bytes: 0, gzip, missing: [] });
    const results = checkBudgets({
      pages: [
        page("/", { css: css(), firstScreen: screen(9 * KB) }),
        page("/transformation", { css: css(), firstScreen: screen(15 * KB) }),
        page("/dmca", { css: css(["/_astro/site.css"]), firstScreen: { error: "timeout" } }),
        page("/apply", { css: css([], ["/_astro/site.css"]) }),
      ],
    });
    expect(status(results, "first-screen")).toBe("FAIL");
    expect(results.find((r) => r.id === "first-screen")?.offenders).toEqual([
      "/transformation 15.0 KB (ends at main>1)",
    ]);
    expect(status(results, "first-screen-measured")).toBe("WARN");
    expect(status(results, "css-noscript")).toBe("FAIL");
    expect(results.find((r) => r.id === "css-noscript")?.offenders).toEqual(["/dmca (/_astro/site.css)"]);
    expect(status(results, "css-loader")).toBe("FAIL");
    expect(results.find((r) => r.id === "css-loader")?.offenders).toEqual(["/apply (/_astro/site.css)"]);

    const unmeasured = checkBudgets({ pages: [page("/")] });
    expect(status(unmeasured, "first-screen")).toBeUndefined();
    expect(status(unmeasured, "css-noscript")).toBeUndefined();
  });

  it("warns, never fails, on build time per 1,000 pages", () => {
    const fast = checkBudgets({
      pages: [page("/")],
      build: { seconds: 4, pages: 20, secondsPer1000Pages: 28, estimated: true },
    });
    expect(status(fast, "build")).toBe("PASS");
    const slow = checkBudgets({ pages: [page("/")], build: { seconds: 60, pages: 1000, secondsPer1000Pages: 60 } });
    expect(status(slow, "build")).toBe("WARN");
    expect(exitCode(slow)).toBe(0);
  });
});
