/**
 * Testimonials appear only on the pages of the program they speak about (`programs` in
 * content/testimonials/*.yaml): a program's page, its sales page and that page's alias; no other
 * page shows one. No page quotes the same words twice: on /transformation the carousel and the
 * success stories below it quote different advisors.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { load } from "js-yaml";
import { SPEC_ROUTES, sitemapPaths } from "./routes";

const content = join(import.meta.dirname, "../../content");
const read = <T>(path: string) => load(readFileSync(path, "utf8")) as T;
const yamlFiles = (dir: string) =>
  readdirSync(join(content, dir))
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => ({ id: f.replace(/\.yaml$/, ""), path: join(content, dir, f) }));

const testimonials = yamlFiles("testimonials").map(({ path }) =>
  read<{ name: string; quote: string; programs: string[] }>(path),
);
const endorsements = Object.values(
  read<Record<string, { author: string; quote: string }>>(join(content, "endorsements.yaml")),
);
const programs = yamlFiles("programs").map(({ id, path }) => ({
  id,
  ...read<{ page: string; salesPage: string }>(path),
}));
/** Aliases serve the page of another route (docs/product.md, Screens and routes). */
const ALIASES: Record<string, string> = { "/advisor-os/details": "/advisor-os", "/programs/ai-advisor": "/programs" };

/** The names on the testimonial cards and in the testimonial carousel, in page order. */
async function testimonialNames(page: Page) {
  const main = page.getByRole("main");
  const cards = main.locator("figure").filter({ has: page.getByRole("img", { name: "Rated 5 out of 5" }) });
  const slides = main.getByRole("region", { name: "Advisor testimonials" }).locator("figure");
  const captions = [
    ...(await cards.locator("figcaption").allTextContents()),
    ...(await slides.locator("figcaption").allTextContents()),
  ];
  return captions.map((caption) => {
    const person = testimonials.find((t) => caption.includes(t.name));
    expect(person, `"${caption.trim()}" is not a testimonial in content/testimonials`).toBeDefined();
    return person!.name;
  });
}

test("each testimonial section shows only testimonials about the page's program", async ({ page, request }) => {
  test.setTimeout(60_000);
  const paths = [...new Set(["/", ...(await sitemapPaths(request)), ...Object.keys(ALIASES)])];
  let pagesWithTestimonials = 0;
  for (const path of paths) {
    const route = ALIASES[path] ?? path;
    const program = programs.find((p) => p.page === route || p.salesPage === route);
    await page.goto(path);
    const shown = await testimonialNames(page);
    if (!program) {
      expect(shown, `${path} belongs to no program and shows no testimonials`).toEqual([]);
      continue;
    }
    const about = testimonials.filter((t) => t.programs.includes(program.id)).map((t) => t.name);
    expect(shown.length, `${path} shows testimonials about ${program.id}`).toBeGreaterThan(0);
    for (const name of shown) expect(about, `${path} (${program.id}) shows ${name}`).toContain(name);
    pagesWithTestimonials++;
  }
  expect(pagesWithTestimonials).toBe(7);
});

/** The marketing routes of the route table: every page but the checkout's, the portal's and the sign-in pages. */
const MARKETING_ROUTES = SPEC_ROUTES.filter(
  (path) => !/^\/(checkout|portal|login|forgot-password|reset-password)(\/|$)/.test(path),
);
const words = (text: string) => text.replace(/\s+/g, " ").trim();

test("no page quotes a testimonial or an endorsement twice", async ({ page }) => {
  test.setTimeout(60_000);
  expect(MARKETING_ROUTES).toContain("/transformation");
  const quotes = [
    ...testimonials.map((t) => ({ who: t.name, quote: words(t.quote) })),
    ...endorsements.map((e) => ({ who: e.author, quote: words(e.quote) })),
  ];
  let quoted = 0;
  for (const path of MARKETING_ROUTES) {
    await page.goto(path);
    // Every slide of a carousel is in the page, shown or not: a quote it repeats counts.
    const text = words((await page.getByRole("main").textContent()) ?? "");
    for (const { who, quote } of quotes) {
      const times = text.split(quote).length - 1;
      expect(times, `${path} quotes ${who} ${times} times`).toBeLessThanOrEqual(1);
      quoted += times;
    }
  }
  // The pages do quote them: on the home page, the sales and the program pages.
  expect(quoted).toBeGreaterThan(testimonials.length);
});
