/**
 * The static server answers like the CDN: pretty URLs, gzip, the 404 page, no escapes, `_redirects`
 * rewrites, `_headers`, and an address's other spellings read as each host reads them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, get, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { HOSTS, headersOf, parseHeaders, parseRedirects, rewriteOf, staticHandler, type Host } from "../index.ts";

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
      "/caf%C3%A9 /c 200",
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

/**
 * Where the hosts differ: an address that names a page's file. Netlify serves it as the page
 * (the trailing slash aside, which it redirects, 301). Cloudflare Pages redirects it to the page's
 * address, 308, and applies a matching `_redirects` rule before any file: Cloudflare's
 * workers-sdk, the Pages asset server's handler, `generateResponse` (and its responses'
 * `stripLeadingDoubleSlashes` for the redirects' addresses).
 */
describe("static server: as each host answers a page's file name", () => {
  let site: string;
  const servers: Server[] = [];
  const bases = {} as Record<Host, string>;

  beforeAll(async () => {
    site = mkdtempSync(join(tmpdir(), "serve-hosts-"));
    mkdirSync(join(site, "advisor-os"));
    writeFileSync(join(site, "index.html"), "<h1>home</h1>");
    writeFileSync(join(site, "dmca.html"), "<h1>dmca</h1>");
    writeFileSync(join(site, "advisor-os.html"), "<h1>advisor os</h1>");
    writeFileSync(join(site, "advisor-os", "details.html"), "<h1>details</h1>");
    writeFileSync(join(site, "404.html"), "<h1>Page not found</h1>");
    writeFileSync(join(site, "_redirects"), "/advisor-os /dmca 200\n");
    writeFileSync(
      join(site, "_headers"),
      "/*\n  X-Content-Type-Options: nosniff\n/dmca.html\n  X-Frame-Options: DENY\n",
    );
    for (const host of ["netlify", "cloudflare"] as const) {
      const server = createServer(staticHandler(site, { host }));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      servers.push(server);
      bases[host] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
  });

  afterAll(() => {
    for (const server of servers) server.close();
    rmSync(site, { recursive: true, force: true });
  });

  /** Status and Location of a raw request target (fetch would normalise some of them). */
  function answer(host: Host, path: string) {
    return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      get(`${bases[host]}${path}`, (r) => {
        let body = "";
        r.on("data", (chunk: Buffer) => (body += chunk.toString()));
        r.on("end", () => resolve({ status: r.statusCode!, headers: r.headers, body }));
      }).on("error", reject);
    });
  }

  it("Netlify serves a page at its file's name, and a file before a rule", async () => {
    for (const [path, text] of [
      ["/dmca.html", "dmca"],
      ["/index.html", "home"],
      ["/index", "home"],
      ["/advisor-os/details.html", "details"],
      ["/advisor-os", "advisor os"],
    ] as const) {
      const res = await answer("netlify", path);
      expect([res.status, res.body], path).toEqual([200, `<h1>${text}</h1>`]);
    }
    expect((await answer("netlify", "/dmca/")).status).toBe(301);
    // Matched on the address as requested: the rule for the file's name applies there.
    expect((await answer("netlify", "/dmca.html")).headers["x-frame-options"]).toBe("DENY");
  });

  it("Cloudflare Pages redirects a page's file name to its address, 308, keeping the query", async () => {
    for (const [path, to] of [
      ["/dmca.html?utm_source=x", "/dmca?utm_source=x"],
      ["/dmca%2Ehtml", "/dmca"],
      ["/index.html", "/"],
      ["/index", "/"],
      ["/advisor-os/details.html", "/advisor-os/details"],
      ["/dmca/", "/dmca"],
      ["/advisor-os/details/", "/advisor-os/details"],
    ] as const) {
      const res = await answer("cloudflare", path);
      expect([res.status, res.headers.location], path).toEqual([308, to]);
    }
    // Its answers all carry the rules' headers, a redirect's too.
    expect((await answer("cloudflare", "/dmca.html")).headers["x-content-type-options"]).toBe("nosniff");
    for (const [path, text] of [
      ["/", "home"],
      ["/dmca", "dmca"],
      ["/advisor-os/details", "details"],
    ] as const) {
      const res = await answer("cloudflare", path);
      expect([res.status, res.body], path).toEqual([200, `<h1>${text}</h1>`]);
    }
  });

  it("Cloudflare Pages applies a matching rule before a file that exists", async () => {
    const res = await answer("cloudflare", "/advisor-os");
    expect([res.status, res.body]).toEqual([200, "<h1>dmca</h1>"]);
  });

  it("Cloudflare Pages never redirects off the site, nor serves its own files", async () => {
    for (const path of ["/%2F%2Fevil.example/index", "/%5C%5Cevil.example/index", "/%2F%2Fevil.example/index/"]) {
      const res = await answer("cloudflare", path);
      expect(res.status, path).toBe(308);
      expect(res.headers.location, path).toMatch(/^\/[^/\\]/);
    }
    for (const path of ["/_redirects", "/%5Fredirects", "/_headers", "/%5Fheaders"]) {
      expect((await answer("cloudflare", path)).status, path).toBe(404);
    }
  });
});

/**
 * How the hosts read an address's spelling (index.ts, `Host`). Both find the file at the decoded
 * path and match `_headers` on the path as requested, so `/l%6Fgin` is the sign-in page with the
 * rules for all paths and not its own: Cloudflare's workers-sdk, the Pages asset server's handler
 * (pages-shared's asset-server/handler.ts, `generateHandler`: `_headers` through
 * `generateRulesMatcher` on `new URL(request.url).pathname`, the asset lookup after
 * `decodeURIComponent(pathname)`); netlify/cli's `netlify dev` alike (utils/proxy.ts). The
 * address is a WHATWG URL's path, so `//login` is a path, not a host. `_redirects` differ: Netlify
 * matches them decoded (netlify/cli's utils/rules-proxy.ts: `decodeURIComponent(pathname)` to
 * its redirect engine), Cloudflare Pages as requested (`generateRulesMatcher` again).
 */
describe("static server: an address's other spellings, as each host reads them", () => {
  let site: string;
  const servers: Server[] = [];
  const bases = {} as Record<Host, string>;

  beforeAll(async () => {
    site = mkdtempSync(join(tmpdir(), "serve-spellings-"));
    mkdirSync(join(site, "checkout"));
    writeFileSync(join(site, "index.html"), "<h1>home</h1>");
    writeFileSync(join(site, "login.html"), "<h1>login</h1>");
    writeFileSync(join(site, "portal.html"), "<h1>portal</h1>");
    writeFileSync(join(site, "checkout", "key-lookup.html"), "<h1>key lookup</h1>");
    writeFileSync(join(site, "404.html"), "<h1>Page not found</h1>");
    writeFileSync(join(site, "_redirects"), "/checkout/*  /checkout/key-lookup  200\n");
    writeFileSync(
      join(site, "_headers"),
      [
        "/*",
        "  X-Frame-Options: DENY",
        "/login",
        "  Content-Security-Policy: script-src 'self'",
        "/portal",
        "  Content-Security-Policy: script-src 'self'",
        "/checkout/*",
        "  Content-Security-Policy: connect-src 'self'",
        "",
      ].join("\n"),
    );
    for (const host of HOSTS) {
      const server = createServer(staticHandler(site, { host }));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      servers.push(server);
      bases[host] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
  });

  afterAll(() => {
    for (const server of servers) server.close();
    rmSync(site, { recursive: true, force: true });
  });

  /** A raw request target, sent as written (fetch would read `//login` as a host). */
  function answer(host: Host, path: string) {
    return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      get(`${bases[host]}${path}`, (r) => {
        let body = "";
        r.on("data", (chunk: Buffer) => (body += chunk.toString()));
        r.on("end", () => resolve({ status: r.statusCode!, headers: r.headers, body }));
      }).on("error", reject);
    });
  }

  it("both hosts find the page at a %-spelling or `//login`, with the rules for all paths and not the page's own", async () => {
    for (const host of HOSTS) {
      for (const [path, page] of [
        ["/l%6Fgin", "login"],
        ["/%6C%6F%67%69%6E", "login"],
        ["/l%6fgin?next=/portal", "login"],
        ["//login", "login"],
        ["/p%6Frtal", "portal"],
      ] as const) {
        const res = await answer(host, path);
        expect([res.status, res.body], `${host} ${path}`).toEqual([200, `<h1>${page}</h1>`]);
        expect(res.headers["x-frame-options"], `${host} ${path}`).toBe("DENY");
        expect(res.headers["content-security-policy"], `${host} ${path}`).toBeUndefined();
      }
      // At its own address, the page's rule too.
      expect((await answer(host, "/login")).headers["content-security-policy"]).toBe("script-src 'self'");
    }
  });

  it("Netlify matches `_redirects` on the decoded path, Cloudflare Pages on the path as requested", async () => {
    const netlify = await answer("netlify", "/ch%65ckout/NOPE");
    expect([netlify.status, netlify.body]).toEqual([200, "<h1>key lookup</h1>"]);
    // Its `_headers` still on the path as requested: the rules for all paths, not the checkout's.
    expect(netlify.headers["x-frame-options"]).toBe("DENY");
    expect(netlify.headers["content-security-policy"]).toBeUndefined();
    expect((await answer("cloudflare", "/ch%65ckout/NOPE")).status).toBe(404);
    for (const host of HOSTS) {
      const plain = await answer(host, "/checkout/NOPE");
      expect([plain.status, plain.body, plain.headers["content-security-policy"]], host).toEqual([
        200,
        "<h1>key lookup</h1>",
        "connect-src 'self'",
      ]);
    }
  });

  it("answers the other spellings with the 404 page or a redirect on the site, under the rules for all paths", async () => {
    for (const [path, to] of [
      ["/login/", "/login"],
      ["/portal%2F", "/portal"],
      ["/login%2Ehtml", "/login"],
      ["//evil.example/index", "/evil.example/"],
    ] as const) {
      const res = await answer("cloudflare", path);
      expect([res.status, res.headers.location, res.headers["x-frame-options"]], path).toEqual([308, to, "DENY"]);
    }
    // Netlify's trailing-slash redirect stays on the site too, `//evil.example/` included.
    for (const [path, to] of [
      ["/login/", "/login"],
      ["//evil.example/", "/evil.example"],
    ] as const) {
      const res = await answer("netlify", path);
      expect([res.status, res.headers.location], path).toEqual([301, to]);
    }
    // Another case (the 404 page where file names are case-sensitive), a %2F: never without them.
    for (const host of HOSTS) {
      for (const path of ["/LOGIN", "/Login", "/portal%2F", "/l%6Fgin%2F"]) {
        expect((await answer(host, path)).headers["x-frame-options"], `${host} ${path}`).toBe("DENY");
      }
    }
  });
});
