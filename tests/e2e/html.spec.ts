/**
 * Valid markup: every built page passes html-validate's recommended rules (inline style
 * attributes allowed), as served to visitors.
 */
import { expect, test } from "@playwright/test";
import { HtmlValidate } from "html-validate";
import { sitemapPaths } from "./routes";

const validator = new HtmlValidate({
  extends: ["html-validate:recommended"],
  rules: { "no-inline-style": "off" },
});

/**
 * The account pages' forms are rendered by React on the server, which writes valid HTML in its
 * own style: `<input/>`, `required=""`, `autoComplete`, ids from useId such as `_r1R_2_`. Those
 * style rules are off for them; every rule about what the markup means still applies.
 */
const reactValidator = new HtmlValidate({
  extends: ["html-validate:recommended"],
  rules: {
    "no-inline-style": "off",
    "void-style": "off",
    "attribute-boolean-style": "off",
    "attr-case": "off",
    "valid-id": ["error", { relaxed: true }],
  },
});

/**
 * The pages kept out of the sitemap: the 404 page, the account pages and the checkout pages (the
 * portal's are checked in portal.spec.ts). The checkout's islands are React's too; the success
 * page is Astro's alone.
 */
const ACCOUNT_PAGES = [
  "/login",
  "/forgot-password",
  "/reset-password",
  "/checkout/AI_ACCELERATOR",
  "/checkout/OS_ACCELERATOR",
  "/checkout/GROWTH_MINDSET",
  // The key lookup page, as the static host serves it for any other key (public/_redirects).
  "/checkout/growth_mindset%20",
];
const OTHER_PAGES = ["/404", "/checkout/success"];

test("every page is valid HTML", async ({ request }) => {
  const problems: string[] = [];
  for (const path of [...(await sitemapPaths(request)), ...OTHER_PAGES, ...ACCOUNT_PAGES]) {
    const html = await (await request.get(path)).text();
    const report = await (ACCOUNT_PAGES.includes(path) ? reactValidator : validator).validateString(html, path);
    for (const result of report.results) {
      for (const message of result.messages) {
        problems.push(`${path}:${message.line}:${message.column} ${message.ruleId}: ${message.message}`);
      }
    }
  }
  expect(problems).toEqual([]);
});
