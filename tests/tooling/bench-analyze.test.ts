import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  analyzePage,
  analyzeSite,
  isMarketing,
  pagePath,
  parseAttributes,
  parseHtml,
  resolveUrl,
  staticImports,
} from "../../tools/bench/analyze.ts";

const dist = mkdtempSync(join(tmpdir(), "bench-"));
afterAll(() => rmSync(dist, { recursive: true, force: true }));

function write(path: string, text: string) {
  mkdirSync(join(dist, path, ".."), { recursive: true });
  writeFileSync(join(dist, path), text);
}

describe("bench page analysis", () => {
  it("names pages by the path the CDN serves", () => {
    expect(pagePath(dist, join(dist, "index.html"))).toBe("/");
    expect(pagePath(dist, join(dist, "dmca.html"))).toBe("/dmca");
    expect(pagePath(dist, join(dist, "advisor-os/details.html"))).toBe("/advisor-os/details");
  });

  it("counts app pages apart from marketing pages", () => {
    expect(isMarketing("/")).toBe(true);
    expect(isMarketing("/login")).toBe(false);
    expect(isMarketing("/portal/settings")).toBe(false);
    expect(isMarketing("/checkout/AI_ACCELERATOR")).toBe(false);
    expect(isMarketing("/portfolio")).toBe(true);
    expect(isMarketing("/login-help")).toBe(true);
    expect(isMarketing("/desk")).toBe(false);
  });

  it("counts as app pages exactly the pages built in the app's layouts (sign-in, checkout and the offer page, portal, desk)", () => {
    const pages = join(import.meta.dirname, "../../src/pages");
    const routes = readdirSync(pages, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".astro"))
      .map((file) => ({
        route: `/${file.replace(/\.astro$/, "").replace(/(^|\/)index$/, "")}`.replace(/\/$/, "") || "/",
        app: /\b(AuthLayout|CheckoutLayout|PortalLayout)\b/.test(readFileSync(join(pages, file), "utf8")),
      }));
    const app = routes.filter((page) => page.app).map((page) => page.route);
    expect(app).toContain("/desk");
    expect(app.filter(isMarketing)).toEqual([]);
    expect(routes.filter((page) => !page.app && !isMarketing(page.route))).toEqual([]);
  });

  it("reads attributes in any quoting, with entities decoded", () => {
    expect(parseAttributes(` src="/a.js?x=1&amp;y=2" defer type='module' data-x=plain`)).toEqual({
      src: "/a.js?x=1&y=2",
      defer: "",
      type: "module",
      "data-x": "plain",
    });
  });

  it("finds only static imports in minified modules", () => {
    const code = `import{t as e}from"./react.js";import"./side.js";export*from"../x.js";export{a as b}from'./y.js';const l=()=>import("./lazy.js");export{e as default};`;
    expect(staticImports(code).sort()).toEqual(["../x.js", "./react.js", "./side.js", "./y.js"]);
  });

  it("resolves URLs against dist or the importing file, and leaves other origins alone", () => {
    expect(resolveUrl(dist, "/_astro/a.js?v=1", join(dist, "x/page.html"))).toEqual({
      file: join(dist, "_astro/a.js"),
    });
    expect(resolveUrl(dist, "./b.js", join(dist, "_astro/a.js"))).toEqual({ file: join(dist, "_astro/b.js") });
    expect(resolveUrl(dist, "c.js", join(dist, "x/page.html"))).toEqual({ file: join(dist, "x/c.js") });
    expect(resolveUrl(dist, "https://js.stripe.com/v3", join(dist, "page.html"))).toHaveProperty("external");
    expect(resolveUrl(dist, "react", join(dist, "_astro/a.js"))).toHaveProperty("unresolved");
    expect(resolveUrl(dist, "../../../etc/passwd", join(dist, "_astro/a.js"))).toHaveProperty("external");
  });

  it("ignores commented-out scripts and JSON scripts, and knows what sits in the head", () => {
    const page = parseHtml(
      `<html><head><!-- <script src="/old.js"></script> --><script type="application/ld+json">{"a":1}</script>
       <script src="/h.js" defer></script><link rel="stylesheet" href="/s.css"><link rel="stylesheet" href="/p.css" media="print">
       </head><body><script src="/b.js"></script><link rel="modulepreload" href="/m.js"><link rel="preload" as="script" href="/p.js"><link rel="preload" as="image" href="/i.png"></body></html>`,
    );
    expect(page.scripts.map((s) => [s.src, s.inHead])).toEqual([
      ["/h.js", true],
      ["/b.js", false],
    ]);
    expect(page.preloads).toEqual(["/m.js", "/p.js"]);
    expect(page.blockingStylesheets).toEqual(["/s.css"]);
  });

  it("tells a stylesheet loaded without blocking, and its no-JS fallback, from a blocking one", () => {
    const page = parseHtml(
      `<html><head><style data-critical>.a{color:red}</style><style>.b{}</style>
       <link rel="stylesheet" href="/site.css" media="print" onload="this.media='all'">
       <noscript><link rel="stylesheet" href="/site.css"></noscript>
       <link rel="stylesheet" href="/print.css" media="print"></head><body></body></html>`,
    );
    expect(page.blockingStylesheets).toEqual([]);
    expect(page.deferredStylesheets).toEqual(["/site.css"]);
    expect(page.noscriptStylesheets).toEqual(["/site.css"]);
    expect(page.styles.map((s) => s.critical)).toEqual([true, false]);
    expect(page.scriptedStylesheets).toEqual([]);
  });

  it("takes a stylesheet left in <noscript data-href> as deferred, loaded only if a script adds it", () => {
    write("_astro/late.css", ".late{color:red}");
    const head = `<style data-critical>.a{}</style><noscript data-href="/_astro/late.css"><link rel="stylesheet" href="/_astro/late.css"></noscript>`;
    const loader = `<script>document.querySelectorAll("noscript[data-href]").forEach(function(n){})</script>`;
    write("late.html", `<html><head>${head}${loader}</head><body></body></html>`);
    write("unloaded.html", `<html><head>${head}</head><body></body></html>`);
    const late = analyzePage(dist, join(dist, "late.html"));
    expect(late.blockingStylesheets).toEqual([]);
    expect(late.css.deferred.map((f: { path: string }) => f.path)).toEqual(["/_astro/late.css"]);
    expect(late.css.withoutNoscript).toEqual([]);
    expect(late.css.withoutLoader).toEqual([]);
    expect(analyzePage(dist, join(dist, "unloaded.html")).css.withoutLoader).toEqual(["/_astro/late.css"]);
  });

  it("measures a page's inline and critical CSS and the stylesheets it defers", () => {
    write("_astro/site.css", ".a{color:red}".repeat(50));
    write(
      "styled.html",
      `<html><head><style data-critical>.a{color:red}</style><link rel="stylesheet" href="/_astro/site.css" media="print" onload="this.media='all'">
       <link rel="stylesheet" href="/_astro/gone.css" media="print" onload="this.media='all'"></head><body></body></html>`,
    );
    const page = analyzePage(dist, join(dist, "styled.html"));
    expect(page.css.critical.raw).toBe(".a{color:red}".length);
    expect(page.css.inline.gzip).toBe(page.css.critical.gzip);
    expect(page.css.deferred.map((f: { path: string; raw: number }) => [f.path, f.raw])).toEqual([
      ["/_astro/site.css", 650],
      ["/_astro/gone.css", 0],
    ]);
    expect(page.css.withoutNoscript).toEqual(["/_astro/site.css", "/_astro/gone.css"]);
    expect(page.problems).toEqual(["missing stylesheet /_astro/gone.css"]);
    expect(page.blockingStylesheets).toEqual([]);
  });

  it("counts every island with its imports as JS on load, split into what loads at once and on view", () => {
    write("_astro/client.js", `import{a}from"./react.js";export const c=1;`);
    write("_astro/react.js", "export const a='react runtime';".repeat(20));
    write("_astro/Eager.js", `import"./react.js";export default 1;`);
    write("_astro/Lazy.js", `import{x}from"./shared-lazy.js";const l=()=>import("./never.js");export default x;`);
    write("_astro/shared-lazy.js", "export const x='lazy';");
    write("_astro/never.js", "export const n='dynamic import, loads later';");
    write("_astro/entry.js", `import"./preloaded.js";`);
    write("_astro/preloaded.js", "export const p=1;");
    write(
      "page.html",
      `<html><head><script type="module">import "/_astro/entry.js";console.log("inline")</script></head><body>
      <astro-island component-url="/_astro/Eager.js" renderer-url="/_astro/client.js" client="idle" props="{&quot;a&quot;:&quot;&gt;&quot;}"></astro-island>
      <astro-island component-url="/_astro/Lazy.js" renderer-url="/_astro/client.js" client="visible"></astro-island>
      <astro-island component-url="/_astro/Lazy.js" renderer-url="/_astro/client.js" client="visible"></astro-island>
      </body></html>`,
    );
    const page = analyzePage(dist, join(dist, "page.html"));
    expect(page.islands).toBe(3);
    expect(page.directives).toEqual({ idle: 1, visible: 2 });
    const files = (when: string) =>
      page.js.files
        .filter((f: { when: string }) => f.when === when)
        .map((f: { path: string }) => f.path)
        .sort();
    expect(files("load")).toEqual([
      "/_astro/Eager.js",
      "/_astro/client.js",
      "/_astro/entry.js",
      "/_astro/preloaded.js",
      "/_astro/react.js",
    ]);
    expect(files("later")).toEqual(["/_astro/Lazy.js", "/_astro/shared-lazy.js"]);
    expect(page.js.inline.count).toBe(1);
    expect(page.js.gzip).toBe(page.jsEager.gzip + page.jsLater.gzip);
    expect(page.js.raw).toBeGreaterThan(20 * 30);
    expect(page.renderBlocking).toEqual([]);
    expect(page.supabase).toBe(false);
    expect(page.problems).toEqual([]);
  });

  it("flags a classic script in the head as render-blocking, not async, deferred or module ones", () => {
    write("_astro/legacy.js", "var x=1;");
    write(
      "blocking.html",
      `<html><head><script src="/_astro/legacy.js"></script><script async src="/_astro/legacy.js"></script>
      <script type="module" src="/_astro/legacy.js"></script></head><body><script src="/_astro/legacy.js"></script></body></html>`,
    );
    const page = analyzePage(dist, join(dist, "blocking.html"));
    expect(page.renderBlocking).toEqual(["/_astro/legacy.js"]);
    expect(page.js.files.map((f: { path: string }) => f.path)).toEqual(["/_astro/legacy.js"]);
  });

  it("tells supabase-js code from a Supabase URL in a config value", () => {
    write("_astro/auth.js", `throw Error("@supabase/auth-js: Expected parameter to be UUID")`);
    write("_astro/store.js", `const u="https://abcd.supabase.co";localStorage.getItem("sb-abcd-auth-token")`);
    write("sb.html", `<html><head><script type="module" src="/_astro/auth.js"></script></head></html>`);
    write("url.html", `<html><head><script type="module" src="/_astro/store.js"></script></head></html>`);
    const code = analyzePage(dist, join(dist, "sb.html"));
    expect(code.supabase).toBe(true);
    expect(code.supabaseFiles).toEqual(["/_astro/auth.js"]);
    const url = analyzePage(dist, join(dist, "url.html"));
    expect(url.supabase).toBe(false);
    expect(url.supabaseMentions).toHaveLength(1);
  });

  it("reports scripts a page names that the build did not write", () => {
    write("missing.html", `<html><head><script type="module" src="/_astro/gone.js"></script></head></html>`);
    expect(analyzePage(dist, join(dist, "missing.html")).problems).toEqual(["missing file /_astro/gone.js"]);
  });

  it("lists each JS file once for the site, with the pages that load it", () => {
    const site = analyzeSite(dist);
    const react = site.jsFiles.find((f: { path: string }) => f.path === "/_astro/react.js");
    expect(react?.pages).toBe(1);
    expect(site.pages[0]?.path).toBe("/blocking");
  });
});
