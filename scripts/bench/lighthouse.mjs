// Lighthouse (mobile, its default) against the built site served as the CDN serves it: gzip on.
import { createServer } from "node:http";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { findChromium } from "../ensure-chromium.mjs";
import { staticHandler } from "../serve.mjs";

const CHROME_FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};

/** Runs Lighthouse `runs` times per page; reports the run with the median performance score. */
export async function runLighthouse(dist, pages, runs) {
  const chromePath = findChromium();
  if (!chromePath) throw new Error("Lighthouse needs Chromium: install it or set CHROME_PATH");
  const server = createServer(staticHandler(dist));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const chrome = await chromeLauncher.launch({ chromePath, chromeFlags: CHROME_FLAGS });
  const results = [];
  try {
    for (const path of pages) {
      const reports = [];
      for (let i = 0; i < runs; i++) {
        const { lhr } = await lighthouse(`${origin}${path}`, {
          port: chrome.port,
          output: "json",
          logLevel: "error",
          onlyCategories: ["performance", "accessibility", "seo", "best-practices"],
        });
        reports.push(lhr);
      }
      const score = (lhr, id) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
      const perfMedian = median(reports.map((r) => score(r, "performance")));
      const chosen = reports.find((r) => score(r, "performance") === perfMedian);
      results.push({
        path,
        runs,
        performance: perfMedian,
        accessibility: score(chosen, "accessibility"),
        seo: score(chosen, "seo"),
        bestPractices: score(chosen, "best-practices"),
        fcpMs: Math.round(chosen.audits["first-contentful-paint"].numericValue),
        lcpMs: Math.round(chosen.audits["largest-contentful-paint"].numericValue),
        tbtMs: Math.round(chosen.audits["total-blocking-time"].numericValue),
        cls: Number(chosen.audits["cumulative-layout-shift"].numericValue.toFixed(3)),
      });
    }
  } finally {
    chrome.kill();
    server.close();
  }
  return results;
}
