/** axe as the portal's tests run it: the WCAG 2.2 A and AA rules on the page as it is now. */
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/** axe's violations on the page as it is, one readable line each. */
export async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"])
    .analyze();
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

/** The two sizes the portal's pages are checked at: desktop and phone. */
export const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];
