import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { analyzePage, isMarketing, pagePath } from "../../scripts/bench/analyze.mjs";

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
    expect(isMarketing("/portal/settings")).toBe(false);
    expect(isMarketing("/checkout/AI_ACCELERATOR")).toBe(false);
    expect(isMarketing("/portfolio")).toBe(true);
  });

  it("counts inline scripts and eager islands with their imports as JS on load, visible islands as deferred", () => {
    write("_astro/client.js", `import{a}from"./react.js";export const c=1;`);
    write("_astro/react.js", "export const a='react runtime';".repeat(20));
    write("_astro/Eager.js", `import"./react.js";export default 1;`);
    write("_astro/Lazy.js", `import{x}from"./shared-lazy.js";export default x;`);
    write("_astro/shared-lazy.js", "export const x='supabase GoTrueClient';");
    write(
      "page.html",
      `<html><head><script type="module">console.log("inline")</script></head><body>
      <astro-island component-url="/_astro/Eager.js" renderer-url="/_astro/client.js" client="idle"></astro-island>
      <astro-island component-url="/_astro/Lazy.js" renderer-url="/_astro/client.js" client="visible"></astro-island>
      </body></html>`,
    );
    const page = analyzePage(dist, join(dist, "page.html"));
    expect(page.islands).toBe(2);
    expect(page.directives).toEqual(["idle", "visible"]);
    expect(page.jsOnLoad.files.sort()).toEqual(["_astro/Eager.js", "_astro/client.js", "_astro/react.js"]);
    expect(page.jsDeferred.files.sort()).toEqual(["_astro/Lazy.js", "_astro/shared-lazy.js"]);
    expect(page.jsOnLoad.raw).toBeGreaterThan(20 * 30);
    expect(page.renderBlocking).toBe(false);
    expect(page.supabase).toBe(true);
  });

  it("flags a classic script in the head as render-blocking", () => {
    write("_astro/legacy.js", "var x=1;");
    write("blocking.html", `<html><head><script src="/_astro/legacy.js"></script></head><body></body></html>`);
    const page = analyzePage(dist, join(dist, "blocking.html"));
    expect(page.renderBlocking).toBe(true);
    expect(page.jsOnLoad.files).toEqual(["_astro/legacy.js"]);
    expect(page.supabase).toBe(false);
  });
});
