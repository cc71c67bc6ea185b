/**
 * The static host's rewrite rules as shipped (public/_redirects): every checkout address reaches
 * a page. Netlify serves an existing file before a rule, Cloudflare Pages applies a matching rule
 * first (workers-sdk asset-server handler: the redirect matcher runs before the asset lookup), so
 * each built checkout page must be named, as itself, before the splat that sends every other key
 * to the key lookup page. Every coached offer's link, /offer/<token>, reaches the one offer page.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRedirects, rewriteOf } from "@advisor-accelerator/static-host";
import { SHELL_PATH } from "../../src/features/checkout/logic";
import { loadPrograms } from "./content-files";

const root = join(import.meta.dirname, "../..");
const { rules, unsupported } = parseRedirects(readFileSync(join(root, "public/_redirects"), "utf8"));
const builtPages = ["/checkout/success", ...loadPrograms().map((p) => `/checkout/${p.checkoutKey}`)];

describe("public/_redirects", () => {
  it("has only rules the local static server applies as the hosts do", () => {
    expect(unsupported).toEqual([]);
    expect(rules.length).toBeGreaterThan(0);
  });

  it("keeps every built checkout page on Cloudflare Pages too: each is rewritten to itself", () => {
    for (const path of builtPages) expect(rewriteOf(rules, path), path).toBe(path);
  });

  it("sends every other checkout address to the key lookup page", () => {
    for (const path of [
      "/checkout/growth_mindset%20",
      "/checkout/ai_accelerator",
      "/checkout/Os_Accelerator",
      "/checkout/NOPE",
    ]) {
      expect(rewriteOf(rules, path), path).toBe(SHELL_PATH);
    }
  });

  it("sends every offer link to the offer page, which reads the token from the address", () => {
    for (const path of [
      `/offer/${"A".repeat(43)}`,
      "/offer/Zz09_-Zz09_-Zz09_-Zz09_-Zz09_-Zz09_-Zz09_-x",
      "/offer/link",
    ]) {
      expect(rewriteOf(rules, path), path).toBe("/offer/link");
    }
  });

  it("points only at pages the site builds", () => {
    const pages = join(root, "src/pages");
    for (const { to } of rules) {
      const built =
        existsSync(join(pages, `${to}.astro`)) || builtPages.includes(to) || existsSync(join(pages, to, "index.astro"));
      expect(built, to).toBe(true);
    }
  });
});
