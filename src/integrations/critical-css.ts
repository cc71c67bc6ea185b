// Critical CSS: after the build, each page inlines only the rules its first screen uses and loads
// the whole stylesheet once that screen is drawn. Beasties (the maintained successor of critters)
// decides which rules the first screen's markup matches; this integration tells it what the
// first screen is, trims the theme's custom properties to those the inlined rules read, keeps the
// cascade layers in the stylesheet's order, and loads the stylesheet late.
//
// The first screen, as markup: everything in <body> before <main> (skip link, header, menus),
// the first `sections` children of <main> and the footer. Four sections cover the first screen
// of every page on phones and on desktop screens up to 1080 px tall; the footer is there for the
// short pages whose footer shows on arrival. `npm run bench` measures where the first screen
// really ends (tools/bench/fold.ts).
//
// Each stylesheet link becomes <noscript data-href="…"><link rel="stylesheet" …></noscript>:
// without JavaScript the browser loads it the ordinary way; with it, a small script (LOADER)
// adds the link back in the same place once the first screen is shown, or as soon as the reader
// scrolls. The stylesheet neither blocks the first paint nor competes with the HTML and the
// first screen's images for the connection; the sections below the first screen are laid out
// only as they near the viewport (src/styles/global.css), by when it has arrived.
//
// The header's and the hero's small SVG images become data: URLs, for the same reason: what the
// first screen shows arrives with the HTML (unless that would push a page that fits the first
// 14 KB of the response, one round trip, past it). Nothing else in the body changes.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import Beasties from "beasties";
import type { AstroIntegration, AstroIntegrationLogger } from "astro";
import postcss from "postcss";
import { topLevelBlocks } from "./html-blocks.ts";

const CONTAINER = "data-beasties-container";
/** Marks the inlined critical CSS, for the bench and the tests. */
const CRITICAL = "data-critical";

/**
 * Marks the first screen's markup for beasties: the body's blocks before <main>, the first
 * `sections` children of <main>, and the body's blocks after it (the footer).
 */
export function markFirstScreen(html: string, { sections = 4 }: { sections?: number } = {}): string {
  const blocks = topLevelBlocks(html);
  const inMain = blocks.filter((b) => b.path.startsWith("main>"));
  const critical = blocks.filter((b) => !b.path.startsWith("main>") || inMain.indexOf(b) < sections);
  let out = html;
  for (const block of [...critical].sort((a, b) => b.start - a.start)) {
    const at = block.start + 1 + block.tag.length;
    out = `${out.slice(0, at)} ${CONTAINER}${out.slice(at)}`;
  }
  return out;
}

const VAR_REF = /var\(\s*(--[\w-]+)/g;

/** The custom properties a piece of CSS or HTML reads with var(). */
export function varReferences(text: string): Set<string> {
  return new Set([...text.matchAll(VAR_REF)].flatMap((m) => (m[1] ? [m[1]] : [])));
}

/**
 * Drops the custom properties that nothing in `css` (or `alsoReads`, e.g. the page's inline
 * styles) reads, directly or through another custom property, with their @property rules, and
 * any rule or block left empty. Tailwind declares every theme value and every --tw-* property
 * the site uses; a first screen reads a few of them.
 */
export function pruneCustomProperties(css: string, alsoReads: Iterable<string> = []): string {
  const root = postcss.parse(css);
  const used = new Set(alsoReads);
  const definitions = new Map<string, string[]>();
  root.walkDecls((decl) => {
    if (decl.prop.startsWith("--")) definitions.set(decl.prop, [...(definitions.get(decl.prop) ?? []), decl.value]);
    else for (const name of varReferences(decl.value)) used.add(name);
  });
  const queue = [...used];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    for (const value of definitions.get(name) ?? []) {
      for (const name of varReferences(value)) {
        if (!used.has(name)) {
          used.add(name);
          queue.push(name);
        }
      }
    }
  }
  root.walkDecls((decl) => {
    if (decl.prop.startsWith("--") && !used.has(decl.prop)) decl.remove();
  });
  root.walkAtRules("property", (rule) => {
    if (!used.has(rule.params.trim())) rule.remove();
  });
  // Rules and blocks left empty; `@layer a;` statements have no body and stay.
  let removed = true;
  while (removed) {
    removed = false;
    root.walk((node) => {
      if ((node.type === "rule" || node.type === "atrule") && node.nodes && node.nodes.length === 0) {
        node.remove();
        removed = true;
      }
    });
  }
  return root.toString();
}

/** The cascade layers of a stylesheet in the order it first names them. */
export function layerOrder(css: string): string[] {
  const names: string[] = [];
  postcss.parse(css).walkAtRules("layer", (rule) => {
    for (const name of rule.params.split(",").map((n) => n.trim())) if (name && !names.includes(name)) names.push(name);
  });
  return names;
}

/**
 * `:where(X)` and `:is(X)` around a single selector, unwrapped: `:where(.space-y-4>:not(:last-child))`
 * becomes `.space-y-4>:not(:last-child)`. Beasties drops pseudo-classes with their arguments
 * before matching, which would leave nothing of Tailwind's space-y, divide-y and group-hover
 * rules, and so never inline them.
 */
export function unwrapWhere(selector: string): string {
  let out = selector;
  for (;;) {
    const start = out.search(/:(?:where|is)\(/);
    if (start < 0) return out;
    const open = out.indexOf("(", start);
    let depth = 0;
    let end = -1;
    let comma = false;
    for (let i = open; i < out.length; i++) {
      if (out[i] === "(") depth++;
      else if (out[i] === ")" && --depth === 0) {
        end = i;
        break;
      } else if (out[i] === "," && depth === 1) comma = true;
    }
    if (end < 0 || comma) return out;
    out = out.slice(0, start) + out.slice(open + 1, end) + out.slice(end + 1);
  }
}

/** Beasties, matching Tailwind's :where() rules by what they wrap. */
class TailwindBeasties extends Beasties {
  normalizeCssSelector(selector: string): string {
    // @ts-expect-error: a method of the implementation, not of the typings
    return super.normalizeCssSelector(unwrapWhere(selector));
  }
}

const STYLE = /<style\b[^>]*>([\s\S]*?)<\/style>/gi;

/**
 * Loads the stylesheets a page defers (each <noscript data-href>, where its link was) once the
 * first screen is on screen: two frames after the load event (the first screen, images
 * included, drawn and shown). Sooner when the reader does not look at the first screen or is
 * about to leave it: a page opened at a fragment or scrolled on arrival loads them as soon as
 * it is parsed, and the first scroll, key, touch or click loads them at once. Three seconds after
 * parsing at the latest, whatever keeps the load event waiting. A page whose script is about to
 * draw what the first screen's CSS does not cover (the portal, once its data arrives) asks for
 * them at once with `dispatchEvent(new Event("load-stylesheets"))`.
 */
export const LOADER =
  "<script>(function(){var d=0;function go(){if(d++)return;" +
  'document.querySelectorAll("noscript[data-href]").forEach(function(n){var l=document.createElement("link");' +
  'l.rel="stylesheet";l.href=n.getAttribute("data-href");n.after(l)})}' +
  '["scroll","keydown","pointerdown","touchstart","load-stylesheets"].forEach(function(t){addEventListener(t,go,{capture:!0,passive:!0,once:!0})});' +
  'addEventListener("load",function(){requestAnimationFrame(function(){requestAnimationFrame(function(){setTimeout(go)})})});' +
  'addEventListener("DOMContentLoaded",function(){location.hash||scrollY?go():setTimeout(go,3e3)})})()</script>';

const STYLESHEET_LINK = /<link\b[^>]*\brel="stylesheet"[^>]*>/gi;
const HREF = /\bhref="([^"]*)"/;

/**
 * Inlines the critical CSS of one page: `process` is criticalCssProcessor()'s, `layers` the
 * stylesheets' layer order. The page's own stylesheets (`base` + *.css) are deferred (see above).
 * Only the head changes.
 */
export async function inlineCritical(
  html: string,
  {
    process,
    layers = [],
    sections = 4,
    base = "/",
  }: { process: (html: string) => Promise<string>; layers?: string[]; sections?: number; base?: string },
): Promise<string> {
  const headEnd = html.search(/<\/head\s*>/i);
  if (headEnd < 0) return html;
  const processed = await process(markFirstScreen(html, { sections }));
  const processedHeadEnd = processed.search(/<\/head\s*>/i);
  if (processedHeadEnd < 0) return html;
  let head = processed.slice(0, processedHeadEnd);
  // The one <style> beasties added (the critical rules of every linked stylesheet, merged).
  const before = new Set([...html.slice(0, headEnd).matchAll(STYLE)].map((m) => m[0]));
  const added = [...head.matchAll(STYLE)].filter((m) => !before.has(m[0]));
  // Nothing inlined (no stylesheet beasties could read), or more than the one merged <style>.
  if (added.length !== 1 || !added[0]) return html;
  const [tag, css = ""] = added[0];
  const reads = varReferences(html.slice(headEnd).replace(STYLE, ""));
  for (const m of html.slice(0, headEnd).matchAll(STYLE)) for (const name of varReferences(m[1] ?? "")) reads.add(name);
  head = head.replace(tag, () => `<style ${CRITICAL}>${pruneCustomProperties(css, reads)}</style>`);
  // The full stylesheets name their cascade layers in this order; the first stylesheet of the
  // page must too, or a layer it leaves out would land after the ones it names.
  if (layers.length) {
    const first = head.search(/<style\b|<link\b[^>]*rel="stylesheet"/);
    const order = `<style>@layer ${layers.join(",")};</style>`;
    head = head.startsWith(`<style ${CRITICAL}>`, first)
      ? head.replace(`<style ${CRITICAL}>`, `<style ${CRITICAL}>@layer ${layers.join(",")};`)
      : head.slice(0, first) + order + head.slice(first);
  }
  let deferred = 0;
  head = head.replace(STYLESHEET_LINK, (link) => {
    const href = link.match(HREF)?.[1];
    if (!href || !href.startsWith(base) || !/\.css(\?|$)/.test(href) || /\bmedia=/.test(link)) return link;
    deferred++;
    return `<noscript data-href="${href}">${link}</noscript>`;
  });
  if (deferred) head += LOADER;
  return head + html.slice(headEnd);
}

/**
 * Astro writes the one rule its islands need (`astro-island{display:contents}`) as a <style> in
 * <body>, before the first island; a <style> is only allowed in <head>, so it moves there.
 */
export function hoistIslandStyle(html: string): string {
  const headEnd = html.search(/<\/head\s*>/i);
  if (headEnd < 0) return html;
  const body = html.slice(headEnd);
  const style = body.match(/<style>astro-island[^<]*<\/style>/);
  if (!style) return html;
  return html.slice(0, headEnd) + style[0] + body.replace(style[0], "");
}

/**
 * An SVG document as a data: URL: comments and the white space between tags dropped, quotes as
 * apostrophes, only what must be escaped escaped.
 */
export function svgDataUri(svg: string): string {
  return `data:image/svg+xml,${svg
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/>\s+</g, "><")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/"/g, "'")
    .replace(/[<>#%]/g, (c) => encodeURIComponent(c))}`;
}

/**
 * The small SVG images of the header and the hero (the blocks before <main> and its first child)
 * as data: URLs, so the first screen's pictures arrive with the HTML instead of in requests of
 * their own. `readImage(src)` returns an image's SVG source, or null; images over `maxBytes`
 * keep their request.
 */
export async function inlineFirstScreenImages(
  html: string,
  { readImage, maxBytes = 2048 }: { readImage: (src: string) => Promise<string | null>; maxBytes?: number },
): Promise<string> {
  const blocks = topLevelBlocks(html);
  const hero = blocks.findIndex((b) => b.path === "main>0");
  const firstScreen = hero < 0 ? [] : blocks.slice(0, hero + 1);
  const replacements: { at: number; length: number; uri: string }[] = [];
  for (const block of firstScreen) {
    for (const match of html.slice(block.start, block.end).matchAll(/<img\b[^>]*?\ssrc="([^"]+\.svg)"[^>]*>/g)) {
      const [tag, src = ""] = match;
      const svg = await readImage(src);
      if (svg === null || Buffer.byteLength(svg) > maxBytes) continue;
      const at = block.start + match.index + tag.indexOf(`src="${src}"`) + 5;
      replacements.push({ at, length: src.length, uri: svgDataUri(svg) });
    }
  }
  let out = html;
  for (const { at, length, uri } of replacements.sort((a, b) => b.at - a.at)) {
    out = out.slice(0, at) + uri + out.slice(at + length);
  }
  return out;
}

/** The critical CSS a built page inlines, or null. */
export function criticalStyle(html: string): string | null {
  const match = html.match(new RegExp(`<style ${CRITICAL}>([\\s\\S]*?)</style>`));
  return match?.[1] ?? null;
}

/**
 * The beasties run this integration makes on a page: the critical rules of the stylesheets (files
 * under `dir`, linked from `base`) inlined before their links, which it leaves in place for
 * inlineCritical() to defer; `alwaysInline` selectors inlined wherever their elements are.
 */
export function criticalCssProcessor({
  dir,
  base = "/",
  alwaysInline = [],
  logger,
}: {
  dir: string;
  base?: string;
  alwaysInline?: (string | RegExp)[];
  logger?: Pick<AstroIntegrationLogger, "warn" | "error">;
}): (html: string) => Promise<string> {
  const beasties = new TailwindBeasties({
    path: dir,
    publicPath: base,
    // inlineCritical() defers the links itself. Beasties leaves a link alone when `preload` is
    // false (embedFetchedStylesheet in its source); its typings list only the strategies' names.
    // @ts-expect-error: false is accepted by the implementation, not by the typings
    preload: false,
    pruneSource: false, // the stylesheet is shared by every page
    reduceInlineStyles: false, // small inlined <style> blocks stay whole
    fonts: false,
    // Every @keyframes: beasties finds those the inlined rules name, not those they name through
    // a custom property (Tailwind's animate-* utilities), and the site has one.
    keyframes: "all",
    allowRules: alwaysInline,
    ...(logger
      ? { logLevel: "warn", logger: { warn: (m) => logger.warn(m), error: (m) => logger.error(m) } }
      : { logLevel: "silent" }),
  });
  return (html) => beasties.process(html);
}

async function htmlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".html"))
    .map((e) => join(e.parentPath, e.name))
    .filter((file) => !file.slice(dir.length).split(/[\\/]/).includes("_astro"))
    .sort();
}

/**
 * TCP's initial congestion window (10 segments of 1,460 bytes) less room for the response's
 * headers: a page whose gzip body fits arrives in the first round trip.
 */
export const FIRST_WINDOW_BYTES = 14 * 1024;

/** Whether a page, gzipped (level 6, as servers do), fits the first round trip. */
export const firstWindow = (html: string): boolean => gzipSync(html).length <= FIRST_WINDOW_BYTES;

/**
 * `sections`: how many of <main>'s children make the first screen; `alwaysInline`: selectors whose
 * rules are inlined on every page, wherever their elements are (beasties' allowRules).
 */
export default function criticalCss({
  sections = 4,
  alwaysInline = [],
}: { sections?: number; alwaysInline?: (string | RegExp)[] } = {}): AstroIntegration {
  let base = "/";
  return {
    name: "critical-css",
    hooks: {
      "astro:config:done": ({ config }) => {
        base = config.base || "/";
      },
      // `dir` is the build's real output folder (`astro build --outDir` included).
      "astro:build:done": async ({ dir, logger }) => {
        const root = fileURLToPath(dir);
        const critical = criticalCssProcessor({ dir: root, base, alwaysInline, logger });
        const layerCache = new Map<string, string[]>();
        const layersOf = async (html: string) => {
          const names: string[] = [];
          for (const [, href = ""] of html.matchAll(/<link\b[^>]*rel="stylesheet"[^>]*href="([^"]+\.css)"/g)) {
            let layers = layerCache.get(href);
            if (!layers) {
              const file = join(root, href.replace(base, ""));
              layers = await readFile(file, "utf8").then(layerOrder, () => []);
              layerCache.set(href, layers);
            }
            for (const name of layers) if (!names.includes(name)) names.push(name);
          }
          return names;
        };
        // The site's own files only (under `base`, not on another origin).
        const readImage = async (src: string): Promise<string | null> =>
          src.startsWith(base) && !src.startsWith("//")
            ? readFile(join(root, src.slice(base.length)), "utf8").catch(() => null)
            : null;
        const files = await htmlFiles(root);
        let pages = 0;
        let criticalBytes = 0;
        for (const file of files) {
          const original = await readFile(file, "utf8");
          const html = hoistIslandStyle(original);
          const out = await inlineCritical(html, {
            process: critical,
            layers: await layersOf(html),
            sections,
            base,
          });
          const withImages = await inlineFirstScreenImages(out, { readImage });
          // A page that fits the first round trip keeps fitting it: its images keep their requests.
          const page = firstWindow(out) && !firstWindow(withImages) ? out : withImages;
          if (page === original) continue;
          await writeFile(file, page);
          if (out !== html) {
            pages++;
            criticalBytes += criticalStyle(out)?.length ?? 0;
          }
        }
        logger.info(
          `critical CSS inlined on ${pages} of ${files.length} pages (${pages ? (criticalBytes / pages / 1024).toFixed(1) : 0} KB a page on average, before gzip); the full stylesheets load without blocking`,
        );
      },
    },
  };
}
