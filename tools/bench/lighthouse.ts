// Lighthouse (mobile, its default: simulated slow 4G and 4x CPU slowdown) against the built site,
// served as the CDN serves it (gzip, pretty URLs) by packages/static-host/index.ts on a free local
// port.
import { existsSync } from "node:fs";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { messageOf } from "./errors.ts";
import { CATEGORIES, type Lhr, type LhrSummary, median, pickMedianRun, summarizeLhr } from "./lhr.ts";
import { serveDist } from "./serve.ts";

/**
 * A page's Lighthouse result: the median performance score of its runs, with the other scores and
 * the metrics of the median run; or why no run succeeded.
 */
export type LighthousePageResult =
  | { path: string; runs: 0; error: string }
  | (LhrSummary & {
      path: string;
      runs: number;
      failedRuns: number;
      performanceRuns: (number | null)[];
      error?: undefined;
    });

export const CHROME_FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];
const DEFAULT_CHROME = "/usr/bin/chromium";

/** The browser to drive: CHROME_PATH, else Debian's Chromium. Never downloads one. */
export function chromePath(env: NodeJS.ProcessEnv = process.env): string {
  const path = env.CHROME_PATH || DEFAULT_CHROME;
  if (!existsSync(path)) throw new Error(`no browser at ${path}: install chromium or set CHROME_PATH`);
  return path;
}

/** One Lighthouse run in a fresh Chrome, killed whatever happens. */
async function runOnce(url: string, chrome: string): Promise<Lhr> {
  const browser = await chromeLauncher.launch({ chromePath: chrome, chromeFlags: CHROME_FLAGS, logLevel: "silent" });
  try {
    const result = await lighthouse(url, {
      port: browser.port,
      output: "json",
      logLevel: "error",
      onlyCategories: CATEGORIES,
      disableFullPageScreenshot: true,
    });
    if (!result?.lhr) throw new Error("Lighthouse returned no result");
    return result.lhr;
  } finally {
    try {
      browser.kill();
    } catch {
      // Already gone.
    }
  }
}

/**
 * Runs Lighthouse `runs` times on each page. Per page: the median performance score, and the
 * other scores and the metrics of the median run (pickMedianRun); `error` when no run succeeded.
 */
export async function runLighthouse({
  dist,
  pages,
  runs,
  log = () => {},
}: {
  dist: string;
  pages: readonly string[];
  runs: number;
  log?: (line: string) => void;
}): Promise<LighthousePageResult[]> {
  const chrome = chromePath();
  const { origin, close } = await serveDist(dist);
  const results: LighthousePageResult[] = [];
  try {
    for (const path of pages) {
      const all: LhrSummary[] = [];
      const errors: string[] = [];
      for (let i = 1; i <= runs; i++) {
        const started = Date.now();
        try {
          const summary = summarizeLhr(await runOnce(`${origin}${path}`, chrome));
          if (summary.runtimeError) throw new Error(summary.runtimeError);
          all.push(summary);
          log(
            `  ${path} run ${i}/${runs}: performance ${summary.scores.performance}, LCP ${summary.lcpMs} ms, ` +
              `TBT ${summary.tbtMs} ms, CLS ${summary.cls} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
          );
        } catch (error) {
          errors.push(messageOf(error));
          log(`  ${path} run ${i}/${runs}: failed: ${messageOf(error)}`);
        }
      }
      const chosen = pickMedianRun(all);
      if (!chosen) {
        results.push({ path, runs: 0, error: errors[0] ?? "no run" });
        continue;
      }
      results.push({
        path,
        runs: all.length,
        failedRuns: errors.length,
        performanceRuns: all.map((r) => r.scores.performance),
        ...chosen,
        scores: { ...chosen.scores, performance: median(all.map((r) => r.scores.performance)) },
      });
    }
  } finally {
    await close();
  }
  return results;
}
