/** The static server answers like the CDN: pretty URLs, gzip, the 404 page, no escapes, `_redirects` rewrites. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, get, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { headersOf, parseHeaders, parseRedirects, rewriteOf, staticHandler } from "../index.ts";

let dir: string;
let server: Server;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "serve-"));
  mkdirSync(join(dir, "advisor-os"));
  mkdirSync(join(dir, "_astro"));
  writeFileSync(join(dir, "index.html"), "<h1>home</h1>");
  writeFileSync(join(dir, "dmca.html"), "<h1>dmca</h1>");
  writeFileSync(join(dir, "advisor-os", "details.html"), "<h1>details</h1>");
  writeFileSync(join(dir, "404.html"), "<h1>Page not found</h1>");
  writeFileSync(join(dir, "_astro", "app.abc123.js"), "console.log(1)".repeat(50));
  writeFileSync(join(tmpdir(), "secret.txt"), "outside the site");
  server = createServer(staticHandler(dir));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

function rawGet(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    get(`${base}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on("error", reject);
  });
}

describe("static server", () => {
  it("serves pages at their pretty URLs", async () => {
    for (const [path, text] of [
      ["/", "home"],
      ["/dmca", "dmca"],
      ["/advisor-os/details", "details"],
    ]) {
      const res = await fetch(base + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await res.text()).toContain(text);
    }
  });

  it("answers unknown paths with the 404 page and status", async () => {
    const res = await fetch(`${base}/no-such-page`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Page not found");
  });

  it("answers 404 and keeps running while a site without a 404 page is being built", async () => {
    const empty = mkdtempSync(join(tmpdir(), "serve-empty-"));
    const bare = createServer(staticHandler(empty));
    await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${url}/`);
        expect(res.status).toBe(404);
        expect(await res.text()).toBe("Not found");
      }
    } finally {
      bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("redirects trailing slashes to the canonical URL", async () => {
    const res = await fetch(`${base}/dmca/?a=1`, { redirect: "manual" });
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("/dmca?a=1");
  });

  it("gzips text for clients that accept it and caches hashed assets for a year", async () => {
    const res = await rawGet("/_astro/app.abc123.js", { "accept-encoding": "gzip" });
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.headers["cache-control"]).toContain("immutable");
    expect(gunzipSync(res.body).toString()).toBe("console.log(1)".repeat(50));
  });

  it("never serves files outside the site", async () => {
    // Sent as raw request targets: fetch would normalise the dots away before sending.
    for (const path of ["/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt", "/%2e%2e%2f%2e%2e%2fsecret.txt"]) {
      const res = await rawGet(path);
      expect(res.status, path).toBe(404);
      expect(res.body.toString(), path).not.toContain("outside the site");
    }
  });

  it("refuses methods a static site does not take", async () => {
    expect((await fetch(base, { method: "POST" })).status).toBe(405);
  });
});

/**
 * The rewrites of a build's `_redirects` (public/_redirects), as the static hosts apply them: a file
 * that exists wins (Netlify's shadowing, docs.netlify.com "Rewrites and proxies"), else the first
 * matching rule answers with its target's file and status 200, the address unchanged; `/x/*` is a
 * splat matching anything below /x/ (Cloudflare's generateRulesMatcher: `*` becomes `.*`).
 */
describe("static server: _redirects rewrites", () => {
  let site: string;
  let siteServer: Server;
  let siteBase: string;

  beforeAll(async () => {
    site = mkdtempSync(join(tmpdir(), "serve-rewrite-"));
    mkdirSync(join(site, "checkout"));
    writeFileSync(join(site, "404.html"), "<h1>Page not found</h1>");
    writeFileSync(join(site, "checkout", "success.html"), "<h1>success page</h1>");
    writeFileSync(join(site, "checkout", "AI_ACCELERATOR.html"), "<h1>built AI page</h1>");
    writeFileSync(join(site, "checkout", "key-lookup.html"), "<h1>key lookup shell</h1>");
    writeFileSync(
      join(site, "_redirects"),
      [
        "# comments and blank lines are skipped",
        "",
        "/checkout/success  /checkout/success  200",
        "/gone  /checkout/nowhere  200",
        "/checkout/*  /checkout/key-lookup  200",
      ].join("\n"),
    );
    siteServer = createServer(staticHandler(site));
    await new Promise<void>((resolve) => siteServer.listen(0, "127.0.0.1", resolve));
    siteBase = `http://127.0.0.1:${(siteServer.address() as AddressInfo).port}`;
  });

  afterAll(() => {
    siteServer.close();
    rmSync(site, { recursive: true, force: true });
  });

  it("serves a file that exists before any rule: the built pages under the splat", async () => {
    for (const [path, text] of [
      ["/checkout/success?session_id=cs_test_1", "success page"],
      ["/checkout/AI_ACCELERATOR", "built AI page"],
      ["/checkout/key-lookup", "key lookup shell"],
    ]) {
      const res = await fetch(siteBase + path, { redirect: "manual" });
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toContain(text);
    }
  });

  it("answers any other path under the splat with the rule's target, status 200, no redirect", async () => {
    for (const path of [
      "/checkout/growth_mindset%20",
      "/checkout/Os_Accelerator",
      "/checkout/ai_accelerator",
      "/checkout/NO_SUCH_KEY?utm_source=x",
      "/checkout/a/b",
    ]) {
      const res = await fetch(siteBase + path, { redirect: "manual" });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("location"), path).toBeNull();
      expect(res.headers.get("content-type"), path).toBe("text/html; charset=utf-8");
      expect(await res.text(), path).toContain("key lookup shell");
    }
  });

  it("leaves paths outside every rule to the 404 page", async () => {
    // `/checkout/*` needs the slash: /checkout itself is not below it.
    for (const path of ["/checkout", "/checkoutx", "/other"]) {
      const res = await fetch(siteBase + path);
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).toContain("Page not found");
    }
  });

  it("answers 404 when a rule's target is no file", async () => {
    const res = await fetch(`${siteBase}/gone`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Page not found");
  });

  it("never serves the _redirects file itself, as the hosts do not", async () => {
    for (const path of ["/_redirects", "/%5Fredirects", "/_headers"]) {
      const res = await fetch(siteBase + path);
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).not.toContain("/checkout/*");
    }
  });

  it("reads the file again for each request, so a rebuild's rules apply at once", async () => {
    const before = await fetch(`${siteBase}/programs/x`);
    expect(before.status).toBe(404);
    const rules = "/programs/*  /checkout/key-lookup  200\n";
    writeFileSync(join(site, "_redirects"), rules);
    try {
      const after = await fetch(`${siteBase}/programs/x`);
      expect(after.status).toBe(200);
      expect(await after.text()).toContain("key lookup shell");
    } finally {
      writeFileSync(join(site, "_redirects"), "/checkout/*  /checkout/key-lookup  200\n");
    }
  });

  it("says which lines it does not apply instead of serving what the host would not", async () => {
    writeFileSync(
      join(site, "_redirects"),
      "/old  /checkout/key-lookup  301\n/checkout/*  /checkout/key-lookup  200\n",
    );
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const res = await fetch(`${siteBase}/old`, { redirect: "manual" });
      expect(res.status).toBe(404);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining("line 1: /old  /checkout/key-lookup  301"));
    } finally {
      warn.mockRestore();
    }
  });
});

describe("parseRedirects and rewriteOf", () => {
  it("reads `from to 200` lines, exact or splat, skipping comments and blank lines", () => {
    const { rules, unsupported } = parseRedirects(
      "# a comment\n\n/checkout/success /checkout/success 200\r\n\t/checkout/*\t\t/checkout/key-lookup   200  \n",
    );
    expect(unsupported).toEqual([]);
    expect(rules).toEqual([
      { from: "/checkout/success", to: "/checkout/success", splat: false },
      { from: "/checkout/", to: "/checkout/key-lookup", splat: true },
    ]);
  });

  it("refuses the forms it does not implement: redirects, no status, force, placeholders, conditions, other hosts", () => {
    const lines = [
      "/old /new 301",
      "/old /new",
      "/app/* /app 200!",
      "/news/* /blog/:splat 200",
      "/news/:year /blog 200",
      "/* /index.html 200 Country=au",
      "/api/* https://api.example.com 200",
      "/x //evil.example 200",
      "/a*b /c 200",
    ];
    const { rules, unsupported } = parseRedirects(lines.join("\n"));
    expect(rules).toEqual([]);
    expect(unsupported).toEqual(lines.map((line, i) => `line ${i + 1}: ${line}`));
  });

  it("takes the first matching rule in the file's order, matched on the path as requested", () => {
    const { rules } = parseRedirects("/checkout/success /checkout/success 200\n/checkout/* /checkout/key-lookup 200\n");
    expect(rewriteOf(rules, "/checkout/success")).toBe("/checkout/success");
    expect(rewriteOf(rules, "/checkout/SUCCESS")).toBe("/checkout/key-lookup");
    expect(rewriteOf(rules, "/checkout/growth_mindset%20")).toBe("/checkout/key-lookup");
    expect(rewriteOf(rules, "/checkout/")).toBe("/checkout/key-lookup");
    expect(rewriteOf(rules, "/checkout")).toBeNull();
    expect(rewriteOf(rules, "/mindset")).toBeNull();
  });
});

describe("_headers", () => {
  const file = [
    "# Written at build time",
    "/*",
    "  X-Content-Type-Options: nosniff",
    "  Content-Security-Policy: default-src 'self'",
    "/login",
    "  X-Frame-Options: DENY",
    "/checkout/*",
    "  Content-Security-Policy: frame-ancestors 'none'",
    "/:placeholder",
    "  X-Never: applied",
    "",
  ].join("\n");

  it("applies every matching rule, joining a header named twice with a comma, as both hosts do", () => {
    const { rules, unsupported } = parseHeaders(file);
    expect(unsupported).toEqual(["line 9: /:placeholder"]);
    expect(headersOf(rules, "/login")).toEqual({
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'self'",
      "x-frame-options": "DENY",
    });
    expect(headersOf(rules, "/checkout/growth_mindset")["content-security-policy"]).toBe(
      "default-src 'self', frame-ancestors 'none'",
    );
    expect(headersOf(rules, "/login/")).not.toHaveProperty("x-frame-options");
  });

  it("sends the build's headers with its pages, the 404 page included", async () => {
    writeFileSync(
      join(dir, "_headers"),
      "/*\n  X-Content-Type-Options: nosniff\n/dmca\n  Content-Security-Policy: default-src 'none'\n",
    );
    const page = await rawGet("/dmca");
    expect(page.headers["content-security-policy"]).toBe("default-src 'none'");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect((await rawGet("/")).headers["content-security-policy"]).toBeUndefined();
    const missing = await rawGet("/no-such-page");
    expect([missing.status, missing.headers["x-content-type-options"]]).toEqual([404, "nosniff"]);
    expect((await rawGet("/_headers")).status).toBe(404);
  });
});
