/**
 * How a provider's frame on a lead page fits what it shows (the height protocol of <lead-embed>,
 * src/scripts/visit.ts): the frame is as tall as its document, so nothing in it is reached by
 * scrolling inside the frame, and no taller than that or the 600px the page reserves for it.
 */
import { expect, type FrameLocator, type Locator, type Page } from "@playwright/test";

/** The height the page reserves for a frame, and the least it takes ([lead].astro). */
export const RESERVED_HEIGHT = 600;

/** The frame on show of that title (without scripts, the page shows its <noscript> one instead). */
export const frameElement = (page: Page, title: string): Locator =>
  page.locator(`iframe[title="${title}"]`).filter({ visible: true });

export const frameOf = (page: Page, title: string): FrameLocator => frameElement(page, title).contentFrame();

/** The frame's height on the page, its document's height, and how far the document overflows the frame. */
export async function measureFrame(page: Page, title: string) {
  const frame = (await frameElement(page, title).boundingBox())!.height;
  const inside = await frameOf(page, title)
    .locator("html")
    .evaluate((html) => ({
      content: html.getBoundingClientRect().height,
      overflow: html.scrollHeight - innerHeight,
      scrolled: scrollY,
      // Before the provider's page arrives the frame holds an empty about:blank.
      loaded: location.protocol !== "about:" && document.readyState === "complete",
    }));
  return { frame, ...inside };
}

/**
 * Waits until the frame shows its whole document, once loaded: nothing overflows it, and it is no taller than
 * the document (rounded up to a whole pixel) or the reserved height. Answers the measurement.
 */
export async function expectFits(page: Page, title: string) {
  let last: Awaited<ReturnType<typeof measureFrame>> | undefined;
  await expect
    .poll(
      async () => {
        // Measured mid-navigation, the frame's document is gone: measure the next one.
        const measured = await measureFrame(page, title).catch(() => undefined);
        if (!measured) return false;
        last = measured;
        return (
          last.loaded &&
          last.overflow <= 0 &&
          last.frame >= last.content &&
          last.frame <= Math.max(RESERVED_HEIGHT, Math.ceil(last.content))
        );
      },
      { message: `the frame "${title}" fits its document`, timeout: 10_000 },
    )
    .toBe(true);
  return last!;
}

/** The control lies inside the frame's box as it is, the frame's document not scrolled. */
export async function expectInView(control: Locator) {
  const place = await control.evaluate((el) => ({
    top: el.getBoundingClientRect().top,
    bottom: el.getBoundingClientRect().bottom,
    height: innerHeight,
    scrolled: scrollY,
  }));
  expect(place.scrolled, "the frame's document is not scrolled").toBe(0);
  expect(place.top).toBeGreaterThanOrEqual(0);
  expect(place.bottom, "the control's bottom is within the frame").toBeLessThanOrEqual(place.height);
}
