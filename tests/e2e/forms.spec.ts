/**
 * What a form's controls tell the person at a glance (src/components/ui/form.tsx): a chosen value
 * reads as chosen, not as the grey of a placeholder; a button that cannot be pressed looks it, and
 * says what it waits for.
 */
import { expect, test, type Locator } from "@playwright/test";

const colour = (locator: Locator, property = "color") =>
  locator.evaluate((element, name) => getComputedStyle(element).getPropertyValue(name), property);

/** How colourful a computed colour is: oklch's chroma, or an rgb colour's spread over its channels. */
function chroma(css: string): number {
  const numbers = css.match(/-?[\d.]+/g)!.map(Number);
  return css.startsWith("oklch")
    ? numbers[1]!
    : (Math.max(...numbers.slice(0, 3)) - Math.min(...numbers.slice(0, 3))) / 255;
}

test.use({ viewport: { width: 390, height: 844 } });

test("the consultation form's AUM range reads as chosen once chosen, grey only while nothing is", async ({ page }) => {
  await page.goto("/get-started");
  const aum = page.getByLabel("Assets under management");
  const typed = page.getByLabel("Full name");
  await typed.fill("Jordan Reyes");
  const placeholderGrey = await colour(aum);
  expect(placeholderGrey).not.toBe(await colour(typed));
  await aum.selectOption("$50M to $100M");
  // The chosen range is written like a typed answer.
  await expect.poll(() => colour(aum)).toBe(await colour(typed));
  await aum.selectOption("");
  await expect.poll(() => colour(aum)).toBe(placeholderGrey);
});

test("Complete Purchase looks disabled until an e-mail is typed, and says what it waits for", async ({ page }) => {
  await page.goto("/checkout/GROWTH_MINDSET");
  const button = page.getByRole("button", { name: "Complete Purchase" });
  await expect(button).toBeDisabled();
  await expect(button).toHaveAccessibleDescription("Enter your e-mail address to continue.");
  const disabledLook = await colour(button, "background-color");
  await page.getByLabel("Email").fill("dana@example.com");
  await expect(button).toBeEnabled();
  await expect(button).toHaveAccessibleDescription("You pay on Stripe's secure page.");
  // Its colours change with a short transition: read them once it has run.
  await expect.poll(async () => chroma(await colour(button, "background-color"))).toBeGreaterThan(0.15);
  const enabledLook = await colour(button, "background-color");
  // Not the same violet made paler: grey, its chroma (oklch, as Tailwind writes colours; or rgb)
  // far below the violet's.
  expect(chroma(disabledLook)).toBeLessThan(chroma(enabledLook) / 3);
});
