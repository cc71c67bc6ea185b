import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  LOADER,
  criticalCssProcessor,
  criticalStyle,
  hoistIslandStyle,
  inlineCritical,
  inlineFirstScreenImages,
  layerOrder,
  markFirstScreen,
  pruneCustomProperties,
  svgDataUri,
  unwrapWhere,
} from "../../src/integrations/critical-css.ts";

const dist = mkdtempSync(join(tmpdir(), "critical-css-"));
afterAll(() => rmSync(dist, { recursive: true, force: true }));

// A Tailwind-shaped stylesheet: layers, theme variables, @property, a :where() utility.
const CSS = [
  `@layer properties{@supports (-moz-orient:inline){*,:before,:after{--tw-shadow:0 0 #0000;--tw-space-y-reverse:0}}}`,
  `@layer theme{:root,:host{--color-ink:#060913;--color-sky:#0ea5e9;--color-rose:#f43f5e;--spacing:.25rem;--font-sans:system-ui;--default-font-family:var(--font-sans);--animate-spin:spin 1s linear infinite}}`,
  `@layer base{html{font-family:var(--default-font-family)}body{background:var(--color-ink)}h1{margin:0}table{border-collapse:collapse}}`,
  `@layer components;`,
  `@layer utilities{.hero{padding:calc(var(--spacing)*8)}.shadow{--tw-shadow:0 1px #000;box-shadow:var(--tw-shadow)}`,
  `.below{color:var(--color-rose)}:where(.space-y-4>:not(:last-child)){margin-block-start:calc(var(--spacing)*4)}`,
  `.lazy-render{content-visibility:auto}.foot{color:var(--color-sky)}.animate-spin{animation:var(--animate-spin)}}`,
  `@keyframes spin{to{transform:rotate(360deg)}}`,
  `@property --tw-shadow{syntax:"*";inherits:false;initial-value:0 0 #0000}`,
  `@property --tw-space-y-reverse{syntax:"*";inherits:false;initial-value:0}`,
].join("");

const PAGE = [
  `<!doctype html><html><head><meta charset="utf-8"><title>t</title>`,
  `<link rel="stylesheet" href="/_astro/site.css"></head><body>`,
  `<site-header><header class="shadow">logo</header></site-header><main>`,
  `<section class="hero"><h1 class="animate-spin">Hello</h1><ul class="space-y-4"><li>a</li><li>b</li></ul></section>`,
  `<section class="lazy-render"><p class="below">later</p></section>`,
  `</main><footer class="foot" style="border-color: var(--color-sky)">end</footer></body></html>`,
].join("");

function processor() {
  mkdirSync(join(dist, "_astro"), { recursive: true });
  writeFileSync(join(dist, "_astro", "site.css"), CSS);
  return criticalCssProcessor({ dir: dist, alwaysInline: [".lazy-render"] });
}

describe("critical CSS", () => {
  it("marks the header, the first sections of <main> and the footer as the first screen", () => {
    const marked = markFirstScreen(PAGE, { sections: 1 });
    expect(marked).toContain(`<site-header data-beasties-container>`);
    expect(marked).toContain(`<section data-beasties-container class="hero">`);
    expect(marked).toContain(`<section class="lazy-render">`);
    expect(marked).toContain(`<footer data-beasties-container class="foot"`);
  });

  it("unwraps :where() and :is() around one selector, not around a list", () => {
    expect(unwrapWhere(":where(.space-y-4>:not(:last-child))")).toBe(".space-y-4>:not(:last-child)");
    expect(unwrapWhere(":where(.group):hover .group-hover\\:bg-white")).toBe(".group:hover .group-hover\\:bg-white");
    expect(unwrapWhere(":is(h1, h2) b")).toBe(":is(h1, h2) b");
    expect(unwrapWhere(".plain")).toBe(".plain");
  });

  it("keeps only the custom properties something reads, through other properties too", () => {
    const css = `:root{--a:1px;--b:var(--a);--c:red;--d:blue}.x{margin:var(--b)}@property --c{syntax:"*";inherits:false}@property --e{syntax:"*";inherits:false}@supports (x:y){*{--d:green}}`;
    const pruned = pruneCustomProperties(css, ["--c"]);
    expect(pruned).toContain("--a:1px");
    expect(pruned).toContain("--b:var(--a)");
    expect(pruned).toContain("--c:red");
    expect(pruned).toContain("@property --c");
    expect(pruned).not.toContain("--d");
    expect(pruned).not.toContain("@supports"); // emptied, then removed
    expect(pruned).not.toContain("--e");
  });

  it("reads a stylesheet's layers in the order it first names them", () => {
    expect(layerOrder(CSS)).toEqual(["properties", "theme", "base", "components", "utilities"]);
    expect(layerOrder("@layer a, b;@layer c{x{y:z}}@layer a{}")).toEqual(["a", "b", "c"]);
  });

  it("inlines the first screen's rules and loads the stylesheet without blocking, with a no-JS fallback", async () => {
    const layers = layerOrder(CSS);
    const html = await inlineCritical(PAGE, { process: processor(), layers, sections: 1 });
    const head = html.slice(0, html.indexOf("</head>"));
    const critical = criticalStyle(html)!;

    expect(critical.startsWith("@layer properties,theme,base,components,utilities;")).toBe(true);
    // The first screen's rules, Tailwind's :where() rules among them, and the always-inlined one.
    for (const rule of [".hero{", ".shadow{", "h1{", "html{", "body{", ".space-y-4>", ".foot{", ".lazy-render{"]) {
      expect(critical).toContain(rule);
    }
    // Not what only the later sections use, nor unused preflight.
    expect(critical).not.toContain(".below");
    expect(critical).not.toContain("table{");
    // Only the custom properties the inlined rules (and the page's inline styles) read.
    expect(critical).toContain("--color-ink:");
    expect(critical).toContain("--color-sky:"); // the footer's and its inline style
    expect(critical).toContain("--default-font-family:var(--font-sans)");
    expect(critical).toContain("--font-sans:");
    expect(critical).not.toContain("--color-rose");
    expect(critical).toContain("@property --tw-shadow");
    // An animation named through a custom property, with its keyframes.
    expect(critical).toContain("--animate-spin:spin 1s linear infinite");
    expect(critical).toContain("@keyframes spin");

    // The stylesheet: a <noscript> link (without JavaScript), added back by the loader once the
    // first screen is drawn, and no longer a link the browser fetches on its own.
    expect(head).toContain(
      `<noscript data-href="/_astro/site.css"><link rel="stylesheet" href="/_astro/site.css"></noscript>`,
    );
    expect(head.replace(/<noscript[\s\S]*?<\/noscript>/g, "")).not.toMatch(/<link[^>]*stylesheet/);
    expect(head.endsWith(LOADER)).toBe(true);
    expect(head.indexOf("<style data-critical>")).toBeLessThan(head.indexOf("<noscript"));
    // The body is sent as built.
    expect(html.slice(html.indexOf("</head>"))).toBe(PAGE.slice(PAGE.indexOf("</head>")));
    expect(html).not.toContain("data-beasties-container");
  });

  /** Runs LOADER against a stand-in window; returns its event listeners, frames, timers and what it added. */
  function runLoader({ hash = "", scrollY = 0 } = {}) {
    const added: { rel: string; href: string; after: string }[] = [];
    const listeners: Record<string, (() => void)[]> = {};
    const frames: (() => void)[] = [];
    const timers: { run: () => void; ms: number }[] = [];
    const noscripts = ["/_astro/a.css", "/_astro/b.css"].map((href) => ({
      getAttribute: (name: string) => (name === "data-href" ? href : null),
      after: (link: { rel: string; href: string }) => added.push({ ...link, after: href }),
    }));
    const window = {
      addEventListener: (type: string, listener: () => void) => (listeners[type] ??= []).push(listener),
      requestAnimationFrame: (frame: () => void) => frames.push(frame),
      setTimeout: (run: () => void, ms = 0) => timers.push({ run, ms }),
      document: {
        querySelectorAll: (selector: string) => (selector === "noscript[data-href]" ? noscripts : []),
        createElement: () => ({ rel: "", href: "" }),
      },
      location: { hash },
      scrollY,
    };
    new Function(...Object.keys(window), LOADER.replace(/^<script>|<\/script>$/g, ""))(...Object.values(window));
    const fire = (type: string) => listeners[type]?.forEach((listener) => listener());
    return { added, fire, frames, timers };
  }

  it("loads the deferred stylesheets where their links were, two frames after the load event", () => {
    const { added, fire, frames, timers } = runLoader();
    fire("DOMContentLoaded");
    fire("load");
    expect(added).toEqual([]);
    frames.shift()!();
    frames.shift()!();
    expect(added).toEqual([]);
    timers.find((t) => t.ms === 0)!.run();
    expect(added).toEqual([
      { rel: "stylesheet", href: "/_astro/a.css", after: "/_astro/a.css" },
      { rel: "stylesheet", href: "/_astro/b.css", after: "/_astro/b.css" },
    ]);
    timers.find((t) => t.ms === 3000)!.run(); // once only
    fire("scroll");
    expect(added).toHaveLength(2);
  });

  it("loads them at once when the reader scrolls, or lands past the first screen, and 3 s after parsing at the latest", () => {
    const scrolled = runLoader();
    scrolled.fire("scroll");
    expect(scrolled.added).toHaveLength(2);

    for (const landing of [{ hash: "#offer" }, { scrollY: 1200 }]) {
      const { added, fire } = runLoader(landing);
      fire("DOMContentLoaded");
      expect(added, JSON.stringify(landing)).toHaveLength(2);
    }

    // A page that draws more than its first screen from script (the portal) asks for them.
    const asked = runLoader();
    asked.fire("load-stylesheets");
    expect(asked.added).toHaveLength(2);

    const slow = runLoader();
    slow.fire("DOMContentLoaded");
    expect(slow.added).toEqual([]);
    slow.timers.find((t) => t.ms === 3000)!.run();
    expect(slow.added).toHaveLength(2);
  });

  it("inlines the small SVG images of the header and the hero, not those further down or too big", async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><path fill="#fff" d="M0 0h1v1z"/></svg>`;
    const images: Record<string, string> = {
      "/logo.svg": svg,
      "/hero.svg": svg,
      "/big.svg": svg.repeat(100),
      "/low.svg": svg,
    };
    const page = [
      `<html><head></head><body><header><img src="/logo.svg" alt="Logo"></header><main>`,
      `<section><img alt="" src="/hero.svg" width="10" height="10"><img src="/big.svg" alt=""><img src="/photo.jpg" alt=""></section>`,
      `<section><img src="/low.svg" alt=""></section></main></body></html>`,
    ].join("");
    const out = await inlineFirstScreenImages(page, { readImage: async (src) => images[src] ?? null });
    const uri = svgDataUri(svg);
    expect(svgDataUri(`<svg>\n  <!-- a comment -->\n  <g>\n    <path d="M0  0"/>\n  </g>\n</svg>\n`)).toBe(
      "data:image/svg+xml,%3Csvg%3E%3Cg%3E%3Cpath d='M0 0'/%3E%3C/g%3E%3C/svg%3E",
    );
    expect(uri).toBe(
      "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 1 1'%3E%3Cpath fill='%23fff' d='M0 0h1v1z'/%3E%3C/svg%3E",
    );
    expect(out).toContain(`<img src="${uri}" alt="Logo">`);
    expect(out).toContain(`<img alt="" src="${uri}" width="10" height="10">`);
    expect(out).toContain(`<img src="/big.svg" alt="">`);
    expect(out).toContain(`<img src="/photo.jpg" alt="">`);
    expect(out).toContain(`<img src="/low.svg" alt="">`);
  });

  it("leaves a page without stylesheets as it is", async () => {
    const page = `<html><head><style>p{color:red}</style></head><body><main><p>x</p></main></body></html>`;
    expect(await inlineCritical(page, { process: processor(), layers: [] })).toBe(page);
  });
});

describe("hoistIslandStyle", () => {
  it("moves Astro's island rule from <body> into <head>, where a <style> is allowed", () => {
    const rule = "<style>astro-island,astro-slot,astro-static-slot{display:contents}</style>";
    const html = `<html><head><title>x</title></head><body><div>${rule}<astro-island></astro-island></div></body></html>`;
    expect(hoistIslandStyle(html)).toBe(
      `<html><head><title>x</title>${rule}</head><body><div><astro-island></astro-island></div></body></html>`,
    );
    const none = "<html><head></head><body><p>no islands</p></body></html>";
    expect(hoistIslandStyle(none)).toBe(none);
  });
});
