import { expect, type Page, test } from "@playwright/test";
import { createCustomer, signIn } from "./customers";

/** The header's computed look, colours converted to sRGB 0-255 with alpha 0-1 whatever syntax (oklab, rgb) Chromium reports. */
const style = (locator: import("@playwright/test").Locator) =>
  locator.evaluate((el) => {
    const context = document.createElement("canvas").getContext("2d", { willReadFrequently: true })!;
    const rgba = (color: string) => {
      context.clearRect(0, 0, 1, 1);
      context.fillStyle = color;
      context.fillRect(0, 0, 1, 1);
      const [r, g, b, a] = context.getImageData(0, 0, 1, 1).data;
      return { r: r!, g: g!, b: b!, a: a! / 255 };
    };
    const s = getComputedStyle(el);
    return {
      background: rgba(s.backgroundColor),
      border: s.borderBottomStyle === "none" ? rgba("transparent") : rgba(s.borderBottomColor),
      borderWidth: parseFloat(s.borderBottomWidth),
      blur: s.backdropFilter,
    };
  });

/** WCAG relative luminance of an sRGB colour, 0 (black) to 1 (white). */
const luminance = ({ r, g, b }: { r: number; g: number; b: number }) => {
  const linear = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
};

test.describe("header", () => {
  test("is transparent at the top and dark, translucent, bordered and blurred once scrolled", async ({ page }) => {
    await page.goto("/");
    const header = page.getByRole("banner");
    await expect(header).toBeVisible();
    const top = await style(header);
    expect(top.background.a).toBe(0);
    expect(top.border.a).toBe(0);
    expect(top.blur).toBe("none");

    await page.evaluate(() => window.scrollTo(0, 10));
    await expect.poll(async () => (await style(header)).blur).toMatch(/blur\(\s*[1-9]/);
    // The colours transition over a few hundred ms; wait for them to settle however slow the machine is.
    await expect.poll(async () => (await style(header)).border.a).toBeGreaterThan(0.05);
    await expect.poll(async () => (await style(header)).background.a).toBeGreaterThan(0.5);
    const scrolled = await style(header);
    expect(scrolled.background.a, "translucent").toBeLessThan(1);
    expect(luminance(scrolled.background), "dark").toBeLessThan(0.05);
    expect(scrolled.borderWidth, "bottom border width").toBeGreaterThanOrEqual(1);

    await page.evaluate(() => window.scrollTo(0, 0));
    await expect.poll(async () => (await style(header)).blur).toBe("none");
    await expect.poll(async () => (await style(header)).background.a).toBe(0);
  });

  test("has the five main links", async ({ page }) => {
    await page.goto("/");
    const nav = page.getByRole("navigation", { name: "Main" });
    const hrefs = await nav.getByRole("link").evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    for (const href of ["/", "/mindset", "/transformation", "/advisor-os", "/purchase-course"]) {
      expect(hrefs).toContain(href);
    }
  });

  test("Programs dropdown opens on click and closes on outside click and Escape", async ({ page }) => {
    await page.goto("/dmca");
    const button = page.getByRole("button", { name: "Programs" });
    await expect(button).toHaveAttribute("aria-expanded", "false");
    const overview = page.getByRole("link", { name: "Overview" });
    await expect(overview).toBeHidden();

    await button.click();
    await expect(button).toHaveAttribute("aria-expanded", "true");
    const menu = page.locator("#" + (await button.getAttribute("aria-controls")));
    const items = await menu
      .getByRole("link")
      .evaluateAll((links) => links.map((a) => [a.textContent!.trim(), a.getAttribute("href")]));
    expect(items).toEqual([
      ["Overview", "/programs"],
      ["Growth Mindset", "/programs/growth-mindset"],
      ["AI Advisor Accelerator", "/programs/ai-advisor-accelerator"],
      ["OS Accelerator", "/programs/advisor-os-accelerator"],
      ["Purchase Course", "/purchase-course"],
    ]);

    await page.getByRole("heading", { level: 1 }).click();
    await expect(button).toHaveAttribute("aria-expanded", "false");
    await expect(overview).toBeHidden();

    await button.click();
    await expect(overview).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(overview).toBeHidden();
    await expect(button).toBeFocused();
  });

  test("Programs dropdown works from the keyboard", async ({ page }) => {
    await page.goto("/dmca");
    const button = page.getByRole("button", { name: "Programs" });
    await button.focus();
    await page.keyboard.press("Enter");
    await expect(button).toHaveAttribute("aria-expanded", "true");

    await page.keyboard.press("ArrowDown");
    await expect(page.getByRole("link", { name: "Overview" })).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(page.getByRole("link", { name: "Growth Mindset", exact: true })).toBeFocused();
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    await expect(
      page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Purchase Course" }).last(),
    ).toBeFocused();

    await page.keyboard.press("Escape");
    await expect(button).toHaveAttribute("aria-expanded", "false");
    await expect(button).toBeFocused();

    await page.keyboard.press("Space");
    await expect(button).toHaveAttribute("aria-expanded", "true");
    await page.keyboard.press("Space");
    await expect(button).toHaveAttribute("aria-expanded", "false");
  });

  test("mobile menu opens, lists every link and closes on Escape", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/");
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    const toggle = page.getByRole("button", { name: "Open menu" });
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-expanded", "true");
    const mobile = page.getByRole("navigation", { name: "Mobile" });
    await expect(mobile).toBeVisible();
    for (const name of ["Mindset", "Transformation", "Advisor OS", "Overview", "OS Accelerator"]) {
      await expect(mobile.getByRole("link", { name, exact: true })).toBeVisible();
    }
    await page.keyboard.press("Escape");
    await expect(mobile).toBeHidden();
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
  });

  test("is solid dark behind the open mobile menu, even at the top of the page", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/");
    const header = page.getByRole("banner");
    expect((await style(header)).background.a).toBe(0);
    await page.getByRole("button", { name: "Open menu" }).click();
    await expect.poll(async () => (await style(header)).background.a).toBe(1);
    expect(luminance((await style(header)).background), "dark").toBeLessThan(0.05);
    await page.keyboard.press("Escape");
    await expect.poll(async () => (await style(header)).background.a).toBe(0);
  });
});

/**
 * The site header's Programs dropdown and the portal header's Account menu are one element
 * (src/components/menu/MenuButton.astro): the same sequence of clicks and keys must do the same
 * to each.
 */
const MENUS = [
  {
    name: "Programs",
    open: async (page: Page) => page.goto("/dmca"),
    first: (page: Page) => page.getByRole("link", { name: "Overview" }),
    last: (page: Page) =>
      page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Purchase Course" }).last(),
  },
  {
    name: "Account",
    open: async (page: Page) => {
      await signIn(page, await createCustomer());
      await expect(page).toHaveURL(/\/portal$/);
    },
    first: (page: Page) => page.getByRole("banner").getByRole("link", { name: "Settings" }),
    last: (page: Page) => page.getByRole("banner").getByRole("button", { name: "Logout" }),
  },
];

for (const menu of MENUS) {
  test(`the ${menu.name} menu: a click, the menu keys, Escape, a click outside and focus leaving`, async ({ page }) => {
    await menu.open(page);
    const button = page.getByRole("banner").getByRole("button", { name: menu.name });
    const [first, last] = [menu.first(page), menu.last(page)];
    const chevron = button.locator("svg");
    await expect(button).toHaveAttribute("aria-expanded", "false");
    await expect(first).toBeHidden();

    // A click opens it and turns the chevron; a click elsewhere on the page closes it.
    await button.click();
    await expect(button).toHaveAttribute("aria-expanded", "true");
    await expect(first).toBeVisible();
    await expect.poll(() => chevron.evaluate((svg) => getComputedStyle(svg).rotate)).toBe("180deg");
    await page.getByRole("heading", { level: 1 }).click();
    await expect(button).toHaveAttribute("aria-expanded", "false");
    await expect(first).toBeHidden();
    await expect.poll(() => chevron.evaluate((svg) => getComputedStyle(svg).rotate)).toBe("none");

    // From the button, ArrowUp opens on the last item; Home, End and the arrows move, wrapping round.
    await button.focus();
    await page.keyboard.press("ArrowUp");
    await expect(last).toBeFocused();
    await page.keyboard.press("Home");
    await expect(first).toBeFocused();
    await page.keyboard.press("ArrowUp");
    await expect(last).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(first).toBeFocused();
    await page.keyboard.press("End");
    await expect(last).toBeFocused();

    // Escape closes it from inside and gives the focus back to the button; ArrowDown opens it on the first item.
    await page.keyboard.press("Escape");
    await expect(button).toHaveAttribute("aria-expanded", "false");
    await expect(button).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(first).toBeFocused();

    // Back to the button keeps it open; Tab out past the last item closes it.
    await page.keyboard.press("Shift+Tab");
    await expect(button).toBeFocused();
    await expect(button).toHaveAttribute("aria-expanded", "true");
    await last.focus();
    await page.keyboard.press("Tab");
    await expect(button).toHaveAttribute("aria-expanded", "false");
    await expect(first).toBeHidden();
  });
}
