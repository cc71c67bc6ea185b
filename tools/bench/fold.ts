// Where each page's first screen ends, in the bytes of its HTML. A browser lays the page out at
// Lighthouse's mobile viewport (412 x 823); the first top-level block (a child of <body>, or of
// <main>) whose top is at or below the viewport's bottom edge starts what is below the fold. The
// gzip size of the HTML before that block's start tag is what a visitor must receive before the
// first screen can be drawn: it should fit the first 14 KB of the response (TCP's initial
// congestion window), so that screen arrives in the first round trip.
import { gzipSync } from "node:zlib";
import { topLevelBlocks } from "../../src/integrations/html-blocks.ts";
import { firstLine } from "./errors.ts";

/** Lighthouse's mobile screen (its default `screenEmulation`). */
export const MOBILE_VIEWPORT = { width: 412, height: 823, deviceScaleFactor: 1.75 };
export type Viewport = typeof MOBILE_VIEWPORT;

/** Where a page's first screen ends; see firstScreen. */
export interface FirstScreen {
  /** The first block below the fold, as topLevelBlocks names it ("main>1"), or "end". */
  at: string;
  tag: string | null;
  /** Where that block starts in the HTML, in characters. */
  index: number;
  /** The same in UTF-8 bytes. */
  bytes: number;
  /** The gzip size of the HTML before it. */
  gzip: number;
  /** Blocks the browser did not report. */
  missing: string[];
}

/** A page's first screen as the bench measured it (with the viewport), or why it could not. */
export type FirstScreenResult = (FirstScreen & { viewport: string }) | { error: string };

/** gzip size (level 9) of the HTML's first `index` characters, as UTF-8. */
export function gzipPrefix(html: string, index: number): number {
  return gzipSync(Buffer.from(html.slice(0, index), "utf8"), { level: 9 }).length;
}

/**
 * The first screen of a page from the boxes a browser measured: `boxes` maps a block's path
 * ("body>2", "main>0", as topLevelBlocks names them) to its top in CSS pixels, at scroll 0.
 * Returns { at, tag, index, bytes, gzip }: the first block at or below `viewportHeight` (or
 * at: "end" when the whole page fits the screen), where it starts in the HTML (characters and
 * UTF-8 bytes) and the gzip size of everything before it. Blocks the browser did not report are
 * skipped; `missing` lists them.
 */
export function firstScreen(html: string, boxes: Readonly<Record<string, number>>, viewportHeight: number): FirstScreen {
  const blocks: { tag: string; start: number; path: string }[] = topLevelBlocks(html);
  const missing = blocks.filter((b) => typeof boxes[b.path] !== "number").map((b) => b.path);
  const below = blocks.find((b) => {
    const top = boxes[b.path];
    return typeof top === "number" && top >= viewportHeight;
  });
  const index = below ? below.start : html.length;
  return {
    at: below ? below.path : "end",
    tag: below ? below.tag : null,
    index,
    bytes: Buffer.byteLength(html.slice(0, index), "utf8"),
    gzip: gzipPrefix(html, index),
    missing,
  };
}

/**
 * Runs in the page: every stylesheet has loaded and applies, those the page deferred included
 * (added from <noscript data-href>, or switched from media="print").
 */
export function stylesheetsApplied(): boolean {
  const links = [...document.querySelectorAll<HTMLLinkElement>('link[rel~="stylesheet"]')];
  const loaded = (link: HTMLLinkElement) => link.sheet !== null && link.media !== "print";
  return (
    links.every(loaded) &&
    [...document.querySelectorAll("noscript[data-href]")].every((n) =>
      links.some((link) => link.getAttribute("href") === n.getAttribute("data-href") && loaded(link)),
    )
  );
}

/**
 * Runs in the page: the top of every top-level block, by path. `display: contents` and other
 * boxless elements report the top of their first child with a box, else 0.
 */
export function measureBlocks(): Record<string, number> {
  const top = (element: Element) => {
    const rect = element.getBoundingClientRect();
    if (rect.width || rect.height) return rect.top + window.scrollY;
    for (const child of element.children) {
      const inner = child.getBoundingClientRect();
      if (inner.width || inner.height) return inner.top + window.scrollY;
    }
    return 0;
  };
  const boxes: Record<string, number> = {};
  const main = document.querySelector("body > main");
  [...document.body.children].forEach((child, n) => {
    if (main && child === main) [...main.children].forEach((inner, m) => (boxes[`main>${m}`] = top(inner)));
    else boxes[`body>${n}`] = top(child);
  });
  return boxes;
}

/**
 * Measures the first screen of each page in the bench's browser (Playwright driving CHROME_PATH
 * or Debian's Chromium), served by `origin`. `read(path)` returns the page's built HTML.
 * Answers each path's FirstScreenResult.
 */
export async function measureFirstScreens({
  origin,
  paths,
  read,
  chrome,
  viewport = MOBILE_VIEWPORT,
}: {
  origin: string;
  paths: readonly string[];
  read: (path: string) => string;
  chrome: string;
  viewport?: Viewport;
}): Promise<Record<string, FirstScreenResult>> {
  const { chromium } = await import("@playwright/test");
  const browser = await chromium.launch({ executablePath: chrome, args: ["--no-sandbox", "--disable-gpu"] });
  const results: Record<string, FirstScreenResult> = {};
  try {
    const context = await browser.newContext({
      viewport: { width: viewport.width, height: viewport.height },
      deviceScaleFactor: viewport.deviceScaleFactor,
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    for (const path of paths) {
      try {
        await page.goto(`${origin}${path}`, { waitUntil: "load" });
        await page.waitForFunction(stylesheetsApplied, null, { timeout: 5000 });
        const boxes = await page.evaluate(measureBlocks);
        results[path] = { viewport: `${viewport.width}x${viewport.height}`, ...firstScreen(read(path), boxes, viewport.height) };
      } catch (error) {
        results[path] = { error: firstLine(error) };
      }
    }
  } finally {
    await browser.close();
  }
  return results;
}
