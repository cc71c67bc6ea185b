import { readFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "@playwright/test";
import { load } from "js-yaml";
import { LOCAL_SITE } from "./servers";

/**
 * Routes of the route table (docs/product.md, Screens and routes) that later issues build. The site links to
 * them already (header, footer, account button); until each lands, a link to it is allowed to
 * answer 404.
 * Delete an entry when its page lands: `pending routes still answer 404` fails until you do.
 */
export const PENDING_ROUTES: string[] = [];

/** The route table of docs/product.md, Screens and routes, with every checkout key filled in. */
export const SPEC_ROUTES = [
  "/",
  "/transformation",
  "/advisor-os",
  "/advisor-os/details",
  "/programs",
  "/programs/ai-advisor",
  "/programs/growth-mindset",
  "/mindset",
  "/programs/ai-advisor-accelerator",
  "/programs/advisor-os-accelerator",
  "/get-started-ai",
  "/get-started-os",
  "/get-started-mindset",
  "/get-started",
  "/apply",
  "/purchase-course",
  "/checkout/AI_ACCELERATOR",
  "/checkout/OS_ACCELERATOR",
  "/checkout/GROWTH_MINDSET",
  "/checkout/success",
  "/portal",
  "/portal/settings",
  "/portal/settings/purchase-history",
  "/privacy-policy",
  "/terms-of-service",
  "/dmca",
];

/** Every built page, read from the sitemap the build wrote, as paths. */
export async function sitemapPaths(request: import("@playwright/test").APIRequestContext): Promise<string[]> {
  const sitemap = await (await request.get("/sitemap.xml")).text();
  return [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map(([, url]) => new URL(url!).pathname).sort();
}

/** The lead pages: one per entry of content/lead-pages.yaml, whose key is the route. */
export const LEAD_PAGES = Object.entries(
  load(readFileSync(join(import.meta.dirname, "../../content/lead-pages.yaml"), "utf8")) as Record<
    string,
    { embed: "consultation" | "booking" }
  >,
).map(([id, page]) => ({ path: `/${id}`, embed: page.embed }));

/**
 * The site's sitemap, read as this file loads so that each page is a test of its own (a sweep in one
 * test outgrew its budget on a slower machine); playwright.config.ts starts the site before any spec
 * loads. Without the site (`--list`), the error, for a test to report.
 */
export async function readSitemap(): Promise<string[] | Error> {
  const context = await request.newContext({ baseURL: LOCAL_SITE });
  try {
    return await sitemapPaths(context);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  } finally {
    await context.dispose();
  }
}
