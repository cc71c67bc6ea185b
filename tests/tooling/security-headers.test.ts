/**
 * The build's `_headers` (src/integrations/security-headers.ts): what every page must have in the
 * rule for all paths, and one policy per page, from what the page holds.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOSTS, parseHeaders, staticHandler } from "@advisor-accelerator/static-host";
import {
  ALL_PATHS_POLICY,
  aliasesOf,
  contentSecurityPolicy,
  embedsOf,
  headersFile,
  inlineScriptHashes,
  MAX_LINE,
  MAX_RULES,
  metaPolicy,
  routeOf,
  splatPrefixes,
  withMetaPolicy,
} from "../../src/integrations/security-headers.ts";

const sha = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
const SUPABASE = "https://abcd.supabase.co";

const home = `<html><head><script type="module">import "/_astro/a.js"</script><script type="application/ld+json">{"@type":"Organization"}</script>
<script src="/_astro/b.js"></script></head><body><script>document.body.dataset.ready = "1"</script></body></html>`;
const lead = `<lead-embed data-src="https://forms.provider.test/widget/booking/x?a=1&amp;b=2" data-script="https://js.provider.test/embed.js"><iframe title="Booking Calendar"></iframe></lead-embed>`;
const video = `<wistia-video data-media-id="abc123" class="x"><img src="/p.jpg" alt=""></wistia-video>`;

describe("security headers", () => {
  it("hashes exactly the inline scripts a browser runs: not data blocks, not external files", () => {
    expect(inlineScriptHashes(home)).toEqual([sha('import "/_astro/a.js"'), sha('document.body.dataset.ready = "1"')]);
  });

  it("finds a page's embeds: the scheduling provider's frame and script, Wistia's video", () => {
    const embeds = embedsOf(lead + video);
    expect([...embeds.frames].sort()).toEqual(["https://forms.provider.test", "https://js.provider.test"]);
    expect([...embeds.scripts]).toEqual(["https://js.provider.test"]);
    expect(embeds.wistia).toBe(true);
    expect(embedsOf(`<wistia-video class="x"></wistia-video>`).wistia).toBe(false);
  });

  it("allows a marketing page its own files and inline scripts only, and leaves framing to the all-path rule", () => {
    const csp = contentSecurityPolicy([{ route: "/", html: home }], { supabaseOrigin: SUPABASE });
    expect(csp).toContain(
      `script-src 'self' ${sha('import "/_astro/a.js"')} ${sha('document.body.dataset.ready = "1"')};`,
    );
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).not.toContain(SUPABASE);
    expect(csp).toContain("frame-src 'none'");
    expect(csp).toContain("object-src 'none'");
    // A second frame-ancestors would only be a weaker-looking copy of the all-path rule's 'none'.
    expect(csp).not.toContain("frame-ancestors");
  });

  it("gives the session's pages the Supabase project", () => {
    for (const route of ["/login", "/portal/settings", "/checkout/OS_ACCELERATOR", "/reset-password"]) {
      const csp = contentSecurityPolicy([{ route, html: home }], { supabaseOrigin: SUPABASE });
      expect(csp, route).toContain(`connect-src 'self' ${SUPABASE}`);
      expect(csp, route).toContain(`img-src 'self' data: ${SUPABASE}`);
    }
  });

  it("lets a lead page's own form reach its function, and nothing else of the project", () => {
    const form = `<consultation-form data-function-url="${SUPABASE}/functions/v1/leads"><form></form></consultation-form>`;
    const csp = contentSecurityPolicy([{ route: "/get-started", html: form }], { supabaseOrigin: SUPABASE });
    expect(csp).toContain(`connect-src 'self' ${SUPABASE}/functions/v1/leads;`);
    expect(csp).not.toContain(`img-src 'self' data: ${SUPABASE}`);
    // Another host named there is not the project's: nothing is added for it.
    const elsewhere = `<div data-function-url="https://collector.example/leads"></div>`;
    expect(contentSecurityPolicy([{ route: "/apply", html: elsewhere }], { supabaseOrigin: SUPABASE })).toContain(
      "connect-src 'self';",
    );
  });

  it("lets a program page ask for the visitor's orders at the address it names, and nothing else of the project", () => {
    const owner = (url: string) =>
      `<program-owner data-program="OS_ACCELERATOR" data-rest-url="${url}" data-api-key="k"></program-owner>`;
    const orders = `${SUPABASE}/rest/v1/stripe_user_orders`;
    for (const route of ["/programs/advisor-os-accelerator", "/purchase-course"]) {
      const csp = contentSecurityPolicy([{ route, html: owner(orders) + owner(orders) }], { supabaseOrigin: SUPABASE });
      expect(csp, route).toContain(`connect-src 'self' ${orders};`);
      expect(csp, route).not.toContain(`img-src 'self' data: ${SUPABASE}`);
    }
    // Another host, or an address with a query (which a policy could not hold to), adds nothing.
    for (const url of ["https://collector.example/rest/v1/stripe_user_orders", `${orders}?select=*`]) {
      expect(
        contentSecurityPolicy([{ route: "/purchase-course", html: owner(url) }], { supabaseOrigin: SUPABASE }),
      ).toContain("connect-src 'self';");
    }
  });

  it("allows an embed's origins on its page only", () => {
    const csp = contentSecurityPolicy([{ route: "/apply", html: lead }], { supabaseOrigin: SUPABASE });
    expect(csp).toContain("frame-src https://forms.provider.test https://js.provider.test");
    expect(csp).toMatch(/script-src 'self' https:\/\/js\.provider\.test;/);
    const os = contentSecurityPolicy([{ route: "/advisor-os", html: video }], { supabaseOrigin: SUPABASE });
    expect(os).toMatch(/script-src 'self' https:\/\/fast\.wistia\.com/);
    expect(os).toContain("media-src 'self' https://fast.wistia.com");
    expect(os).toContain("blob:");
  });

  it("writes one rule with a policy per page, one per splat family, and the common headers for all", () => {
    const text = headersFile(
      [
        { route: "/", html: home },
        { route: "/login", html: home },
        { route: "/checkout/AI_ACCELERATOR", html: "<script>a()</script>" },
        { route: "/checkout/key-lookup", html: "<script>b()</script>" },
      ],
      { supabaseOrigin: SUPABASE, splats: ["/checkout/"] },
    );
    const paths = text.split("\n").filter((line) => line.startsWith("/"));
    // Each page's rule for the addresses Netlify answers it at too; a splat family covers its files.
    expect(paths).toEqual(["/*", "/", "/index.html", "/index", "/login", "/login.html", "/checkout/*"]);
    const checkout = text.split("/checkout/*\n")[1]!;
    expect(checkout).toContain(`${sha("a()")} ${sha("b()")}`);
  });

  it("puts what every page must have in the rule for all paths, and names each of its headers there alone but the policy", () => {
    const text = headersFile(
      [
        { route: "/", html: home },
        { route: "/login", html: home },
        { route: "/checkout/key-lookup", html: "<script>b()</script>" },
        { route: "/portal/courses/growth-mindset", html: "<script>c()</script>" },
      ],
      { supabaseOrigin: SUPABASE, splats: ["/checkout/"] },
    );
    const { rules, unsupported } = parseHeaders(text);
    expect(unsupported).toEqual([]);
    const [all, ...pages] = rules;
    expect(all!.path + (all!.splat ? "*" : "")).toBe("/*");
    const headers = Object.fromEntries(all!.headers);
    expect(headers).toMatchObject({
      "X-Frame-Options": "DENY",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "strict-origin-when-cross-origin",
      "Content-Security-Policy": "frame-ancestors 'none'; object-src 'none'; base-uri 'self'",
    });
    expect(headers["Strict-Transport-Security"]).toMatch(/^max-age=31536000\b/);
    // Both hosts join a header two matching rules name: a page's rule adds its own policy (a second
    // policy, both enforced) and nothing else, so no `X-Frame-Options: DENY, DENY`.
    for (const rule of pages) {
      const names = rule.headers.map(([name]) => name);
      expect(names, rule.path).toEqual(["Content-Security-Policy"]);
    }
  });

  it("lets a lesson with a video run its player's script, and its neighbours not: Wistia's hosts, or the stand-in's origin", () => {
    const withVideo = `<article data-video-player="https://fast.wistia.com/player.js"></article>`;
    expect(embedsOf(withVideo).wistia).toBe(true);
    const local = embedsOf(`<article data-video-player="http://localhost:4321/_wistia/player.js"></article>`);
    expect(local.wistia).toBe(false);
    expect([...local.scripts]).toEqual(["http://localhost:4321"]);
    expect(embedsOf(`<article class="lesson"></article>`).wistia).toBe(false);
    expect(embedsOf(`<article data-video-player="https://fast.wistia.com.evil.test/p.js"></article>`).wistia).toBe(
      false,
    );
  });

  it("gives the member area's pages no rule of their own, the all-path one, and each its own policy in a meta tag before any script", () => {
    const lesson = (route: string, body: string) => ({
      route,
      html: `<!DOCTYPE html><html><head><meta charset="utf-8"><script>go()</script></head><body>${body}</body></html>`,
    });
    const pages = [
      lesson("/portal/courses/growth-mindset", ""),
      lesson("/portal/courses/growth-mindset/a", `<article data-video-player="https://fast.wistia.com/player.js">`),
      lesson("/portal/courses/growth-mindset/b", "<article>"),
      { route: "/portal", html: home },
    ];
    const file = headersFile(pages, { supabaseOrigin: SUPABASE });
    expect(file.split("\n").filter((line) => line.startsWith("/"))).toEqual(["/*", "/portal", "/portal.html"]);
    const policy = (page: (typeof pages)[number]) => metaPolicy(page, { supabaseOrigin: SUPABASE });
    expect(policy(pages[1]!)).toMatch(/script-src [^;]*https:\/\/fast\.wistia\.com/);
    expect(policy(pages[2]!)).not.toContain("wistia");
    expect(policy(pages[2]!)).toContain(`connect-src 'self' ${SUPABASE}`);
    // A meta tag cannot carry frame-ancestors: the header does.
    expect(policy(pages[2]!)).not.toContain("frame-ancestors");
    const html = withMetaPolicy(pages[2]!.html, "script-src 'self' 'sha256-x'");
    expect(html).toContain(
      `<meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="script-src 'self' 'sha256-x'"><script>`,
    );
  });

  it("refuses to write what Cloudflare Pages would cut: a line over 2,000 characters", () => {
    const many = Array.from({ length: 40 }, (_, i) => `<script>f${i}()</script>`).join("");
    expect(() => headersFile([{ route: "/", html: many }], { supabaseOrigin: SUPABASE })).toThrow(
      `over ${MAX_LINE} characters`,
    );
  });

  it("maps built files to their routes and reads the splats of _redirects", () => {
    expect(["index.html", "dmca.html", "portal/settings.html", "portal/index.html"].map(routeOf)).toEqual([
      "/",
      "/dmca",
      "/portal/settings",
      "/portal",
    ]);
    expect(
      splatPrefixes("# x\n/checkout/OS /checkout/OS 200\n/checkout/* /checkout/key-lookup 200\n/old /new 301\n"),
    ).toEqual(["/checkout/"]);
  });
});

/**
 * A page's file name (`/login.html`) must not be a way around its policy: on Netlify, which serves
 * it as the page, its rule covers that address too; on Cloudflare Pages, which redirects it to the
 * page's address, the page's own headers follow. Served here by the static host as either host
 * does (packages/static-host/index.ts), from a small build with the real `_headers` writer.
 */
describe("a page's file name gets the page's headers, on both hosts", () => {
  const files: Record<string, string> = {
    "index.html": home,
    "login.html": `<script>login()</script>`,
    "portal.html": `<script>portal()</script>`,
    "portal/settings.html": `<script>settings()</script>`,
    "advisor-os.html": video,
    "advisor-os/details.html": `<script>details()</script>`,
    "checkout/AI_ACCELERATOR.html": `<script>a()</script>`,
    "checkout/key-lookup.html": `<script>b()</script>`,
    "portal/courses/growth-mindset.html": `<meta charset="utf-8"><script>course()</script>`,
  };
  const REDIRECTS = "/checkout/AI_ACCELERATOR /checkout/AI_ACCELERATOR 200\n/checkout/* /checkout/key-lookup 200\n";
  const SECURITY = [
    "content-security-policy",
    "x-frame-options",
    "strict-transport-security",
    "x-content-type-options",
    "referrer-policy",
    "permissions-policy",
  ];
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "headers-site-"));
    for (const [file, html] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), html);
    }
    writeFileSync(join(dir, "404.html"), "<h1>Not found</h1>");
    writeFileSync(join(dir, "_redirects"), REDIRECTS);
    const pages = Object.entries(files).map(([file, html]) => ({ route: routeOf(file), file, html }));
    writeFileSync(join(dir, "_headers"), headersFile(pages, { supabaseOrigin: SUPABASE, splats: ["/checkout/"] }));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const security = (headers: Headers) => Object.fromEntries(SECURITY.map((name) => [name, headers.get(name)]));

  for (const host of HOSTS) {
    it(`${host}: every .html path, /index included, answers as its page does or redirects there`, async () => {
      const server = createServer(staticHandler(dir, { host }));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const aliases = Object.keys(files).flatMap((file) => {
          const page = routeOf(file);
          return [`/${file}`, ...(file === "index.html" ? ["/index"] : [])].map((alias) => [alias, page] as const);
        });
        for (const [alias, page] of aliases) {
          const clean = await fetch(base + page, { redirect: "manual" });
          expect(clean.status, page).toBe(200);
          expect(clean.headers.get("content-security-policy"), page).toBeTruthy();
          const response = await fetch(base + alias, { redirect: "manual" });
          if (response.status === 308) {
            expect(host, alias).toBe("cloudflare");
            expect(response.headers.get("location"), alias).toBe(page);
          } else {
            expect(response.status, alias).toBe(200);
            expect(security(response.headers), alias).toEqual(security(clean.headers));
          }
        }
      } finally {
        server.close();
      }
    });
  }

  it("every page rule names its page's file too, and Cloudflare Pages' limit still holds", () => {
    const text = readFileSync(join(dir, "_headers"), "utf8");
    const paths = text.split("\n").filter((line) => line.startsWith("/"));
    for (const file of Object.keys(files).filter(
      (f) => !f.startsWith("checkout/") && !f.startsWith("portal/courses/"),
    )) {
      expect(paths, file).toContain(`/${file}`);
    }
    expect(aliasesOf({ route: "/", html: "" })).toEqual(["/index.html", "/index"]);
    expect(aliasesOf({ route: "/portal", file: "portal/index.html", html: "" })).toEqual([
      "/portal/index.html",
      "/portal/index",
    ]);
    expect(paths.length).toBeLessThanOrEqual(MAX_RULES);
  });
});

/**
 * Another spelling of a page's address (`/l%6Fgin`, `//login`, `/p%6Frtal`) is no way around the
 * headers every page must have. Both hosts find the file decoded but match `_headers` on the
 * address as requested (packages/static-host/index.ts, `Host`), so such a spelling is the page
 * without its own rule: the rule for all paths must hold the protection. Served by the static host
 * as either host does, from a small build with the real `_headers` writer.
 */
describe("every spelling of a page's address keeps the protective headers, on both hosts", () => {
  const files: Record<string, string> = {
    "index.html": home,
    "login.html": `<script>login()</script>`,
    "portal.html": `<script>portal()</script>`,
    "portal/settings.html": `<script>settings()</script>`,
    "checkout/AI_ACCELERATOR.html": `<script>a()</script>`,
    "checkout/key-lookup.html": `<script>b()</script>`,
    "portal/courses/growth-mindset.html": `<meta charset="utf-8"><script>course()</script>`,
  };
  const SPELLINGS = [
    "/l%6Fgin",
    "/%6C%6F%67%69%6E",
    "/l%6fgin",
    "/LOGIN",
    "/login/",
    "/login%2F",
    "//login",
    "/login%2Ehtml",
    "/p%6Frtal",
    "/portal%2F",
    "/portal%2Fsettings",
    "/p%6Frtal/settings",
    "/portal//settings",
    "/portal/c%6Furses/growth-mindset",
    "/ch%65ckout/AI_ACCELERATOR",
    "/checkout/%41I_ACCELERATOR",
    "/ch%65ckout/NOPE",
    "/%69ndex",
  ];
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "headers-spellings-"));
    for (const [file, html] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), html);
    }
    writeFileSync(join(dir, "404.html"), "<h1>Not found</h1>");
    writeFileSync(
      join(dir, "_redirects"),
      "/checkout/AI_ACCELERATOR /checkout/AI_ACCELERATOR 200\n/checkout/* /checkout/key-lookup 200\n",
    );
    const pages = Object.entries(files).map(([file, html]) => ({ route: routeOf(file), file, html }));
    writeFileSync(join(dir, "_headers"), headersFile(pages, { supabaseOrigin: SUPABASE, splats: ["/checkout/"] }));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** What every answer must say, whatever the address: no framing, nosniff, a referrer policy, HSTS. */
  const protection = (headers: Headers) => ({
    "x-frame-options": headers.get("x-frame-options"),
    framing: (headers.get("content-security-policy") ?? "").split(", ").includes(ALL_PATHS_POLICY),
    "x-content-type-options": headers.get("x-content-type-options"),
    "referrer-policy": headers.get("referrer-policy"),
    hsts: /^max-age=31536000\b/.test(headers.get("strict-transport-security") ?? ""),
  });
  const PROTECTED = {
    "x-frame-options": "DENY",
    framing: true,
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    hsts: true,
  };

  for (const host of HOSTS) {
    it(`${host}: a page, the 404 page or a redirect to the page, never a page without them`, async () => {
      const server = createServer(staticHandler(dir, { host }));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const pages: string[] = [];
        for (const path of SPELLINGS) {
          const response = await fetch(base + path, { redirect: "manual" });
          const body = await response.text();
          if (response.status === 301) {
            // Netlify's trailing-slash redirect: no page in it, and it stays on the site.
            expect(host, path).toBe("netlify");
            expect(response.headers.get("location"), path).toMatch(/^\/[^/\\]/);
            continue;
          }
          expect([200, 308, 404], path).toContain(response.status);
          expect(protection(response.headers), `${host} ${path} (${response.status})`).toEqual(PROTECTED);
          if (response.status === 200 && body.includes("<script>")) pages.push(path);
        }
        // The spellings do reach the pages (the file is found decoded): the test is no empty one.
        expect(pages).toEqual(
          expect.arrayContaining(["/l%6Fgin", "//login", "/p%6Frtal", "/ch%65ckout/AI_ACCELERATOR"]),
        );
        // At a page's own address, its policy beside the all-path one: two policies, both enforced.
        for (const page of ["/", "/login", "/portal/settings", "/checkout/AI_ACCELERATOR", "/checkout/NOPE"]) {
          const policies = (await fetch(base + page)).headers.get("content-security-policy")!.split(", ");
          expect(policies, page).toEqual([ALL_PATHS_POLICY, expect.stringContaining("script-src 'self' 'sha256-")]);
        }
        const course = await fetch(`${base}/portal/courses/growth-mindset`);
        expect(course.headers.get("content-security-policy")).toBe(ALL_PATHS_POLICY);
      } finally {
        server.close();
      }
    });
  }
});
