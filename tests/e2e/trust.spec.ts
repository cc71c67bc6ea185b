/**
 * What lets a visitor trust the site: the people behind the programs, a source for every figure,
 * and no control that does nothing. The site's content configures no hero video
 * (content/site.yaml, `heroVideo.wistiaMediaId` is empty), so the heroes show a still and no play
 * button; tests/tooling/content-build.test.ts builds a copy with the video configured and finds the
 * button there. (The fixture site, fixture-site.ts, configures the OS page's video only.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { load } from "js-yaml";

const content = join(import.meta.dirname, "../../content");
const read = <T>(path: string) => load(readFileSync(join(content, path), "utf8")) as T;
const entries = <T>(dir: string) =>
  readdirSync(join(content, dir))
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => ({ id: f.replace(/\.yaml$/, ""), ...read<T>(`${dir}/${f}`) }));
/** The front matter of an MDX page of content/pages. */
const frontMatter = <T>(file: string) => load(readFileSync(join(content, file), "utf8").split(/^---$/m)[1]!) as T;
const words = (text: string) => text.replace(/\s+/g, " ").trim();

const site = read<{ site: { heroVideo: { wistiaMediaId: string } } }>("site.yaml").site;
/** In the order the pages show them. */
const coaches = entries<{ name: string; role: string; programs: string[]; order: number }>("coaches").sort(
  (a, b) => a.order - b.order,
);
const programs = entries<{ name: string; page: string; salesPage: string }>("programs");
type Stat = { value: string; label: string; source: string };

const SCREENS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 900 },
];

for (const screen of SCREENS) {
  test.describe(`heroes without a video (${screen.width} px)`, () => {
    test.use({ viewport: { width: screen.width, height: screen.height } });

    for (const path of ["/", "/transformation"]) {
      test(`${path}: no play or watch control, a designed still, and a hero that paints at once`, async ({ page }) => {
        expect(site.heroVideo.wistiaMediaId, "content/site.yaml configures no hero video").toBe("");
        // The largest paint of the first screen, as the browser reports it.
        await page.addInitScript(() => {
          const w = window as unknown as { lcp?: Element | null };
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries())
              w.lcp = (entry as PerformanceEntry & { element: Element | null }).element;
          }).observe({ type: "largest-contentful-paint", buffered: true });
        });
        await page.goto(path);
        const hero = page.getByRole("main").locator("> *").first();
        await expect(hero.getByRole("heading", { level: 1 })).toBeVisible();
        await expect(hero.getByRole("button", { name: /play|watch|video/i })).toHaveCount(0);
        await expect(hero.getByRole("img", { name: /play|watch|video/i })).toHaveCount(0);
        await expect(hero.getByText(/^(play|watch)/i)).toHaveCount(0);
        // Nowhere on the page either: no video is configured anywhere. (The quote carousel's
        // pause button reads "Play quotes" once paused; it plays what it says.)
        await expect(page.getByRole("button", { name: /play video|watch/i })).toHaveCount(0);
        const still = hero.getByRole("img", {
          name: "The Advisor Accelerator framework: Attract, Convert, Automate, Scale",
        });
        await still.scrollIntoViewIfNeeded();
        await expect(still).toBeVisible();

        // The hero's largest paint is its text or its still, which arrives inside the HTML
        // (src/integrations/critical-css.ts inlines it), eager and drawn at no more than its size.
        await page.evaluate(() => window.scrollTo(0, 0));
        const lcp = await page.waitForFunction(() => (window as unknown as { lcp?: Element | null }).lcp ?? null);
        const largest = await lcp.evaluate((found) => {
          const element = found!;
          const image = element instanceof HTMLImageElement ? element : null;
          return {
            inHero: !!element.closest("main > :first-child"),
            tag: element.tagName,
            src: image?.currentSrc.slice(0, 5),
            loading: image?.loading,
            drawnWidth: image?.getBoundingClientRect().width,
            width: image?.naturalWidth,
          };
        });
        expect(largest.inHero, `the largest paint (${largest.tag}) is in the hero`).toBe(true);
        if (largest.tag === "IMG") {
          expect(largest.src).toBe("data:");
          expect(largest.loading).toBe("eager");
          expect(largest.drawnWidth!).toBeLessThanOrEqual(largest.width!);
        }
      });
    }
  });
}

/** The coaches section of a page. */
const coachesOf = (page: Page) =>
  page.locator("section", { has: page.getByRole("heading", { level: 2, name: /^Meet your coach(es)?$/ }) });

async function expectCoaches(section: Locator, shown: typeof coaches) {
  await expect(section.getByRole("heading", { level: 3 })).toHaveText(shown.map((c) => c.name));
  for (const coach of shown) {
    const card = section
      .getByRole("listitem")
      .filter({ has: section.page().getByRole("heading", { name: coach.name }) });
    await expect(card.getByText(coach.role, { exact: true })).toBeVisible();
    // No photo yet: the initials on a panel, and no picture of anyone.
    await expect(card.getByRole("img")).toHaveCount(0);
  }
}

test("the home page shows every coach with name and role, and the programs each coaches", async ({ page }) => {
  expect(coaches.length).toBeGreaterThanOrEqual(2);
  await page.goto("/");
  const section = coachesOf(page);
  await section.scrollIntoViewIfNeeded();
  await expectCoaches(section, coaches);
  for (const coach of coaches) {
    const card = section.getByRole("listitem").filter({ has: page.getByRole("heading", { name: coach.name }) });
    for (const id of coach.programs) {
      const program = programs.find((p) => p.id === id)!;
      await expect(card.getByRole("link", { name: program.name })).toHaveAttribute("href", program.page);
    }
  }
});

test("each program's pages show the coaches of that program, and only them", async ({ page }) => {
  for (const program of programs) {
    const theirs = coaches.filter((c) => c.programs.includes(program.id));
    expect(theirs.length, `${program.id} has a coach`).toBeGreaterThan(0);
    for (const path of [program.page, program.salesPage]) {
      await page.goto(path);
      const section = coachesOf(page);
      await section.scrollIntoViewIfNeeded();
      await expectCoaches(section, theirs);
    }
  }
});

/**
 * The figure's footnote mark ("Source 2" to a screen reader) links to the note of that number in
 * the same section, which gives its source; following it brings the note into view.
 */
async function expectSourced(section: Locator, figure: Locator, source: string) {
  const mark = figure.getByRole("link", { name: /^Source \d+$/ });
  await expect(mark).toHaveCount(1);
  await expect(mark).toBeVisible();
  await expect(mark).toHaveText(/^\d+$/);
  const n = Number(await mark.textContent());
  const target = (await mark.getAttribute("href"))!;
  expect(target).toMatch(/^#/);
  const note = section.locator(`[id="${target.slice(1)}"]`);
  expect(words((await note.textContent()) ?? "")).toContain(words(source));
  // The note is the n-th of the section's numbered sources (a chart's single source is note 1).
  const position = await note.evaluate((el) =>
    el.tagName === "LI" ? [...el.parentElement!.children].indexOf(el) + 1 : 1,
  );
  expect(position).toBe(n);
  await mark.click();
  await expect(note).toBeInViewport();
}

test("every statistic on the home page and the programs overview shows its source as a footnote", async ({ page }) => {
  for (const [path, file, heading] of [
    ["/", "stats.yaml", "Results our members report"],
    ["/programs", "success-metrics.yaml", "Results our members report"],
  ] as const) {
    const stats = Object.values(read<Record<string, Stat>>(file));
    await page.goto(path);
    const section = page.locator("section", { has: page.getByRole("heading", { level: 2, name: heading }) });
    await section.scrollIntoViewIfNeeded();
    await expect(section.getByRole("heading", { name: "Sources" })).toBeVisible();
    for (const stat of stats) {
      const card = section.locator("dl > div").filter({ hasText: stat.label });
      await expect(card.getByRole("definition")).toContainText(stat.value);
      await expectSourced(section, card, stat.source);
    }
  }
});

test("the OS payoff figures and the /mindset chart show their sources", async ({ page }) => {
  const payoff = frontMatter<{ sections: { payoff: { items: { title: string; source: string }[] } } }>(
    "pages/advisor-os.mdx",
  ).sections.payoff.items;
  await page.goto("/advisor-os");
  const section = page.locator("section", { has: page.locator("#payoff-heading") });
  await section.scrollIntoViewIfNeeded();
  for (const item of payoff) {
    await expectSourced(section, section.getByRole("listitem").filter({ hasText: item.title }), item.source);
  }

  const chart = Object.values(read<Record<string, { title: string; source: string }>>("charts.yaml"))[0]!;
  await page.goto("/mindset");
  const figure = page.getByRole("figure").filter({ hasText: chart.title });
  await figure.scrollIntoViewIfNeeded();
  await expectSourced(figure, figure.locator("figcaption"), chart.source);
});
