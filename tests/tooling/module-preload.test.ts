import { init } from "es-module-lexer";
import { beforeAll, describe, expect, it } from "vitest";
import { addPreloads, deferToLoad, preloadsFor, staticImports } from "../../src/integrations/module-preload.ts";

beforeAll(async () => {
  await init;
});

const modules: Record<string, string> = {
  "/_astro/Header.js": 'import{a as s}from"./store.js";import"./supabase.js";s();',
  "/_astro/store.js": 'import{c}from"./supabase.js";export const a=()=>import("./Later.js");',
  "/_astro/supabase.js": `export const c=1;${"/* the client */".repeat(20)}`,
  "/_astro/Later.js": "export default 1;",
};
const read = async (url: string) => modules[url] ?? null;

describe("module preloads", () => {
  it("reads static imports only, not import()", () => {
    expect(staticImports(modules["/_astro/store.js"]!)).toEqual(["./supabase.js"]);
  });

  it("preloads a page's module script and everything it imports statically, once each, largest first", async () => {
    const html = '<head></head><body><script type="module" src="/_astro/Header.js"></script></body>';
    // Over HTTP/1.1 the seventh request waits for a connection: the largest module never does.
    expect(await preloadsFor(html, read)).toEqual(["/_astro/supabase.js", "/_astro/store.js", "/_astro/Header.js"]);
  });

  it('loads the module scripts of a page marked data-scripts="after-load" at the load event, with no preload', async () => {
    const html =
      '<head></head><body><consultation-form data-scripts="after-load"></consultation-form><script type="module" src="/_astro/Header.js"></script><script type="module" src="https://cdn.example/a.js"></script></body>';
    expect(await preloadsFor(html, read)).toEqual([]);
    expect(deferToLoad(html)).toBe(
      '<head></head><body><consultation-form data-scripts="after-load"></consultation-form><script type="module">addEventListener("load",()=>import("/_astro/Header.js"),{once:true})</script><script type="module" src="https://cdn.example/a.js"></script></body>',
    );
    const unmarked = '<head></head><body><script type="module" src="/_astro/Header.js"></script></body>';
    expect(deferToLoad(unmarked)).toBe(unmarked);
  });

  it("leaves pages without module scripts, inline scripts and other origins alone", async () => {
    const html =
      '<head></head><script type="module">import"./x.js"</script><script type="module" src="https://cdn.example/a.js"></script><script src="/_astro/classic.js"></script>';
    expect(await preloadsFor(html, read)).toEqual([]);
  });

  it("writes the links before </head>, without repeating one the page has", () => {
    const html = '<head><link rel="modulepreload" href="/_astro/a.js"></head><body></body>';
    expect(addPreloads(html, ["/_astro/a.js", "/_astro/b.js"])).toBe(
      '<head><link rel="modulepreload" href="/_astro/a.js"><link rel="modulepreload" href="/_astro/b.js"></head><body></body>',
    );
    expect(addPreloads(html, [])).toBe(html);
  });
});
