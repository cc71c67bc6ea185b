import { expect, type Page, test } from "@playwright/test";
import { formatCents } from "../../packages/shared/money.ts";
import { loadPrograms } from "../unit/content-files";
import { priceOf } from "./prices";

/** The catalogue the checkout charges from (content/programs/*.yaml). */
const CATALOGUE = loadPrograms();

const PROGRAM_PAGES = [
  {
    path: "/programs/ai-advisor-accelerator",
    name: "AI Advisor Accelerator",
    learnMore: "/transformation",
    apply: "/get-started-ai",
    curriculum: ["Weeks 1-2", "Weeks 3-4", "Weeks 5-6", "Weeks 7-8", "Weeks 9-10", "Weeks 11-12"],
  },
  {
    path: "/programs/growth-mindset",
    name: "Growth Mindset Mastery",
    learnMore: "/mindset",
    apply: "/get-started-mindset",
    curriculum: ["Module 1", "Module 2", "Module 3", "Module 4", "Module 5", "Module 6"],
  },
  {
    path: "/programs/advisor-os-accelerator",
    name: "Advisor OS Accelerator",
    learnMore: "/advisor-os",
    apply: "/get-started-os",
    curriculum: Array.from({ length: 9 }, (_, i) => `Module ${i + 1}`),
  },
];

const main = (page: Page) => page.getByRole("main");

test.describe("program pages", () => {
  for (const program of PROGRAM_PAGES) {
    test(`${program.path}: hero links, curriculum, five-star testimonials, apply`, async ({ page }) => {
      await page.goto(program.path);
      await expect(main(page).getByText(program.name, { exact: true }).first()).toBeVisible();
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await expect(main(page).getByRole("link", { name: "Learn More" })).toHaveAttribute("href", program.learnMore);
      await expect(main(page).getByRole("link", { name: "Apply Now" }).first()).toHaveAttribute("href", program.apply);

      const curriculum = page.locator("section", { has: page.locator("#curriculum-heading") });
      await expect(curriculum.getByRole("listitem")).toHaveCount(program.curriculum.length);
      const labels = await curriculum
        .getByRole("listitem")
        .evaluateAll((items) => items.map((li) => li.querySelector("p")!.textContent!.trim()));
      expect(labels).toEqual(program.curriculum);

      await expect(page.getByRole("heading", { level: 2, name: "Success Stories" })).toBeVisible();
      const ratings = page.getByRole("img", { name: "Rated 5 out of 5" });
      expect(await ratings.count()).toBeGreaterThanOrEqual(2);
      expect(await ratings.first().locator("svg").count()).toBe(5);
    });
  }

  for (const program of CATALOGUE) {
    test(`${program.page}: the checkout price next to the way to buy it, in the page's HTML`, async ({ page }) => {
      await page.goto(program.page);
      const buy = main(page).getByRole("link", { name: `Buy Now ${program.name}` });
      await expect(buy).toHaveAttribute("href", `/checkout/${program.checkoutKey}`);
      // The same number the checkout charges, formatted as every price is.
      const offer = main(page)
        .locator("p")
        .filter({ has: page.getByRole("link", { name: `Buy Now ${program.name}` }) });
      await expect(offer).toContainText(`${formatCents(program.priceCents)} one-time payment`);
      // Static: the page runs no island for it.
      await expect(page.locator("astro-island")).toHaveCount(0);
      await buy.click();
      await expect(page).toHaveURL(new RegExp(`/checkout/${program.checkoutKey}$`));
      await expect(page.getByRole("region", { name: "Order Summary" })).toContainText(formatCents(program.priceCents));
    });
  }

  test("the OS Accelerator page lists the challenges and who it fits", async ({ page }) => {
    await page.goto("/programs/advisor-os-accelerator");
    await expect(page.getByRole("heading", { level: 2, name: "Sound familiar?" })).toBeVisible();
    const fit = page.locator("section", { has: page.locator("#fit-heading") });
    await expect(fit).toContainText("over $10M in assets");
    await expect(fit).toContainText("at least one employee");
    await expect(fit).toContainText("bi-weekly 1-on-1 calls");
  });
});

test.describe("programs overview", () => {
  for (const path of ["/programs", "/programs/ai-advisor"]) {
    test(`${path}: three cards to the program pages, comparison table, success metrics, closing CTA`, async ({
      page,
    }) => {
      await page.goto(path);
      const cards = page.locator("section", { has: page.locator("#programs-heading") });
      const targets = await cards
        .getByRole("link", { name: /^Learn more/ })
        .evaluateAll((links) => links.map((a) => a.getAttribute("href")));
      expect(targets).toEqual([
        "/programs/growth-mindset",
        "/programs/ai-advisor-accelerator",
        "/programs/advisor-os-accelerator",
      ]);

      const table = page.getByRole("table", { name: "Compare the programs" });
      await expect(table.getByRole("columnheader")).toHaveText([
        "Growth Mindset Mastery",
        "AI Advisor Accelerator",
        "Advisor OS Accelerator",
      ]);
      const row = (name: string) => table.getByRole("row").filter({ has: page.getByRole("rowheader", { name }) });
      await expect(row("Length").getByRole("cell")).toHaveText(["Self-paced", "12 weeks", "12 weeks"]);
      await expect(row("Investment").getByRole("cell")).toHaveText(
        ["GROWTH_MINDSET", "AI_ACCELERATOR", "OS_ACCELERATOR"].map(priceOf),
      );

      const metrics = page.locator("section", { has: page.locator("#metrics-heading") });
      for (const [value, label] of [
        ["300%", "AUM growth"],
        ["40%", "Client satisfaction increase"],
        ["60%", "Time savings"],
        ["95%", "Completion rate"],
      ] as const) {
        await expect(metrics.getByText(value, { exact: true })).toBeVisible();
        await expect(metrics.getByText(label, { exact: true })).toBeVisible();
      }
      await expect(page.getByRole("link", { name: "Book Your Free Strategy Call" })).toHaveAttribute(
        "href",
        "/get-started",
      );
    });
  }

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 900 },
  ]) {
    test(`the comparison fits a ${viewport.width} px screen: every program whole, nothing to scroll sideways`, async ({
      page,
    }) => {
      await page.setViewportSize(viewport);
      await page.goto("/programs");
      const section = page.locator("section", { has: page.locator("#comparison-heading") });
      await section.scrollIntoViewIfNeeded();
      const names = ["Growth Mindset Mastery", "AI Advisor Accelerator", "Advisor OS Accelerator"];
      // A phone gets a card per program, a wider screen the table; never both.
      const table = section.getByRole("table", { name: "Compare the programs" });
      const cards = section.getByRole("listitem");
      const columns =
        viewport.width < 768
          ? names.map((name) => cards.filter({ has: page.getByRole("heading", { level: 3, name }) }))
          : names.map((name) => table.getByRole("columnheader", { name }));
      if (viewport.width < 768) {
        await expect(table).toBeHidden();
        await expect(cards).toHaveCount(3);
        for (const card of columns) {
          // Each card says what the table's rows say, the price included.
          await expect(card.getByRole("term")).toHaveText(["Format", "Length", "Best for", "Support", "Investment"]);
        }
        await expect(columns[1]!.getByRole("definition").last()).toHaveText(priceOf("AI_ACCELERATOR"));
      } else {
        await expect(table).toBeVisible();
        await expect(cards).toHaveCount(0);
      }
      for (const [i, column] of columns.entries()) {
        await expect(column, names[i]).toBeVisible();
        const box = (await column.boundingBox())!;
        expect(box.x, `${names[i]} starts on the screen`).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, `${names[i]} ends on the screen`).toBeLessThanOrEqual(viewport.width);
      }
      // Neither the page nor anything in the comparison scrolls sideways (what is there only for
      // screen readers is clipped to a pixel on purpose).
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      const overflowing = await section.evaluate((root) =>
        [root, ...root.querySelectorAll("*")]
          .filter(
            (el) =>
              el.clientWidth > 1 && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "visible",
          )
          .map((el) => el.outerHTML.slice(0, 80)),
      );
      expect(overflowing).toEqual([]);
    });
  }

  test("/programs/ai-advisor points search engines at /programs", async ({ page }) => {
    await page.goto("/programs/ai-advisor");
    const canonical = await page.locator('link[rel="canonical"]').getAttribute("href");
    expect(new URL(canonical!).pathname).toBe("/programs");
  });
});

test("purchase page: each program at its checkout price with a button to its checkout", async ({ page }) => {
  await page.goto("/purchase-course");
  for (const [name, price, key] of [
    ["Growth Mindset Mastery", priceOf("GROWTH_MINDSET"), "GROWTH_MINDSET"],
    ["AI Advisor Accelerator", priceOf("AI_ACCELERATOR"), "AI_ACCELERATOR"],
    ["Advisor OS Accelerator", priceOf("OS_ACCELERATOR"), "OS_ACCELERATOR"],
  ] as const) {
    const card = main(page)
      .getByRole("listitem")
      .filter({ has: page.getByRole("heading", { name, exact: true }) });
    await expect(card).toContainText(price);
    // The catalogue's price, the one the checkout charges.
    const program = CATALOGUE.find((p) => p.checkoutKey === key)!;
    await expect(card).toContainText(`${formatCents(program.priceCents)} one-time payment`);
    await expect(card.getByRole("link", { name: `Buy Now ${name}` })).toHaveAttribute("href", `/checkout/${key}`);
  }
  for (const promise of [
    "Your course in the client portal once your payment clears",
    "Lifetime access to the course",
    "30-day money-back guarantee",
  ]) {
    await expect(main(page).getByText(promise, { exact: true })).toBeVisible();
  }
});
