import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { readSitemap } from "./routes";

type Result = Awaited<ReturnType<AxeBuilder["analyze"]>>["violations"][number];

/** One violation as a reader can act on it: rule, impact, help link, and each offending element with axe's advice. */
const describe = (v: Result) =>
  [
    `${v.id} (${v.impact}) ${v.help} <${v.helpUrl}>`,
    ...v.nodes.map(
      (n) =>
        `    ${n.target.join(" ")}  ${n.html.slice(0, 160)}\n      ${n.failureSummary?.replace(/\n/g, "\n      ")}`,
    ),
  ].join("\n");

/** Pages kept out of the sitemap that the sweep covers too: the checkout's, each of its states' first screen. */
const UNLISTED = [
  "/no-such-page",
  "/checkout/AI_ACCELERATOR",
  "/checkout/OS_ACCELERATOR",
  "/checkout/GROWTH_MINDSET",
  "/checkout/growth_mindset%20",
  "/checkout/NO_SUCH_PROGRAM",
  "/checkout/success?session_id=cs_test_a11y",
  "/checkout/success",
  // An offer link no offer has: the offer page's "not valid" state.
  `/offer/${"A".repeat(43)}`,
];

const viewports = [
  { name: "desktop", width: 1280, height: 900 },
  { name: "mobile", width: 390, height: 844 },
];

const sitemap = await readSitemap();

if (sitemap instanceof Error) {
  test("axe sweep: the sitemap can be read", () => {
    throw sitemap;
  });
} else {
  for (const viewport of viewports) {
    test.describe(`axe at ${viewport.name} width (${viewport.width}px)`, () => {
      test.use({ viewport: { width: viewport.width, height: viewport.height } });

      for (const path of new Set([...sitemap, ...UNLISTED])) {
        test(`${path} has no violations`, async ({ page }) => {
          await page.goto(path);
          const results = await new AxeBuilder({ page })
            .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"])
            .analyze();
          expect(results.violations.map(describe), path).toEqual([]);
        });
      }
    });
  }
}

test("menus open in axe's view too: dropdown and mobile menu are clean when open", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("button", { name: "Programs" }).click();
  expect((await new AxeBuilder({ page }).analyze()).violations.map(describe)).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("button", { name: "Open menu" }).click();
  expect((await new AxeBuilder({ page }).analyze()).violations.map(describe)).toEqual([]);
});
