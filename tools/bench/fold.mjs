// Where each page's first screen ends, in the bytes of its HTML. A browser lays the page out at
// Lighthouse's mobile viewport (412 x 823); the first top-level block (a child of <body>, or of
// <main>) whose top is at or below the viewport's bottom edge starts what is below the fold. The
// gzip size of the HTML before that block's start tag is what a visitor must receive before the
// first screen can be drawn: it should fit the first 14 KB of the response (TCP's initial
// congestion window), so that screen arrives in the first round trip.
/* global document, window -- measureBlocks and stylesheetsApplied run in the page */
import { gzipSync } from "node:zlib";
import { topLevelBlocks } from "../../src/integrations/html-blocks.mjs";

/** Lighthouse's mobile screen (its default `screenEmulation`). */
export const MOBILE_VIEWPORT = { width: 412, height: 823, deviceScaleFactor: 1.75 };

/** gzip size (level 9) of the HTML's first `index` characters, as UTF-8. */
export function gzipPrefix(html, index) {
  return gzipSync(Buffer.from(html.slice(0, index), "utf8"), { level: 9 }).length;
}

/**
 * The first screen of a page from the boxes a browser measured: `boxes` maps a block's path
 * ("body>2", "main>0", as topLevelBlocks names them) to its top in CSS pixels, at scroll 0.
 * Returns { at, tag, index, bytes, gzip }: the first block at or below `viewportHeight` (or
 * at: "end" when the whole page fits the screen), where it starts in the HTML (characters and
 * UTF-8 bytes) and the gzip size of everything before it. Blocks the browser did not report are
 * skipped; `missing` lists them.
 * @param {string} html
 * @param {Record<string, number>} boxes
 * @param {number} viewportHeight
 */
export function firstScreen(html, boxes, viewportHeight) {
  const blocks = topLevelBlocks(html);
  const missing = blocks.filter((b) => typeof boxes[b.path] !== "number").map((b) => b.path);
  const below = blocks.find((b) => typeof boxes[b.path] === "number" && boxes[b.path] >= viewportHeight);
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
export function stylesheetsApplied() {
  const links = [...document.querySelectorAll('link[rel~="stylesheet"]')];
  const loaded = (link) => link.sheet !== null && link.media !== "print";
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
export function measureBlocks() {
  const top = (element) => {
    const rect = element.getBoundingClientRect();
    if (rect.width || rect.height) return rect.top + window.scrollY;
    for (const child of element.children) {
      const inner = child.getBoundingClientRect();
      if (inner.width || inner.height) return inner.top + window.scrollY;
    }
    return 0;
  };
  /** @type {Record<string, number>} */
  const boxes = {};
  const main = document.querySelector("body > main");
  [...document.body.children].forEach((child, n) => {
    if (child === main) [...main.children].forEach((inner, m) => (boxes[`main>${m}`] = top(inner)));
    else boxes[`body>${n}`] = top(child);
  });
  return boxes;
}

/**
 * Measures the first screen of each page in the bench's browser (Playwright driving CHROME_PATH
 * or Debian's Chromium), served by `origin`. `read(path)` returns the page's built HTML.
 * Returns { path: firstScreen(...) } plus `error` for a page that could not be measured.
 * @param {{ origin: string, paths: string[], read: (path: string) => string, chrome: string, viewport?: typeof MOBILE_VIEWPORT }} options
 */
export async function measureFirstScreens({ origin, paths, read, chrome, viewport = MOBILE_VIEWPORT }) {
  const { chromium } = await import("@playwright/test");
  const browser = await chromium.launch({ executablePath: chrome, args: ["--no-sandbox", "--disable-gpu"] });
  /** @type {Record<string, any>} */
  const results = {};
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
        results[path] = { error: error.message.split("\n")[0] };
      }
    }
  } finally {
    await browser.close();
  }
  return results;
}
