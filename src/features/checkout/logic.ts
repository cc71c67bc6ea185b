/**
 * The checkout page's rules (docs/product.md §2 Checkout, §5, §8), pure so that they are unit
 * tested: what a program carries into the page, which program an address names, where Back goes,
 * and the spec's texts.
 */
import { findByCheckoutKey } from "../../lib/catalogue";

/** What the checkout island needs of a program (content/programs/*.yaml), and nothing more. */
export interface CheckoutProgram {
  name: string;
  checkoutKey: string;
  priceCents: number;
  stripeLookupKey: string;
  image: string;
  imageAlt: string;
  description: string;
  /** The program's page: where Back leads a buyer who did not come from this site. */
  page: string;
}

/** The island's props carry these fields only, so a program's other content does not ship to the browser. */
export function checkoutProgram(program: CheckoutProgram): CheckoutProgram {
  const { name, checkoutKey, priceCents, stripeLookupKey, image, imageAlt, description, page } = program;
  return { name, checkoutKey, priceCents, stripeLookupKey, image, imageAlt, description, page };
}

/** The spec's message when the checkout cannot start (docs/product.md §8). */
export const CHECKOUT_ERROR = "There was an error processing your request. Please try again.";

/**
 * The page the static host serves for every /checkout/<key> that is not a built page
 * (public/_redirects). Its name has a hyphen, which no checkout key may have (src/schemas/content.ts).
 */
export const SHELL_PATH = "/checkout/key-lookup";

/** The product key of a checkout address, as typed (still %-encoded): `/checkout/growth_mindset%20` -> `growth_mindset%20`. */
export function keyFromPath(pathname: string): string | null {
  const match = /^\/checkout\/([^/]+)\/?$/.exec(pathname);
  return match ? match[1]! : null;
}

/** The program a checkout address names (trimmed, case-insensitive, %-decoded: src/lib/catalogue.ts), or undefined. */
export function programAt<T extends CheckoutProgram>(programs: readonly T[], pathname: string): T | undefined {
  return findByCheckoutKey(programs, keyFromPath(pathname));
}

/**
 * Whether Back should return to the previous page instead of following its link to the program's
 * page: only when the buyer came from a page of this site in this tab, so Back never leaves the
 * site (a search result, an e-mail, Stripe's page after a cancel) or does nothing (a new tab).
 */
export function returnsToPreviousPage(referrer: string, origin: string, historyLength: number): boolean {
  if (historyLength < 2 || !referrer) return false;
  try {
    return new URL(referrer).origin === origin;
  } catch {
    return false;
  }
}

/**
 * The visit's first touch, as the script every page runs recorded it (src/scripts/visit.ts), read
 * from its JSON (checkoutRequest keeps only the fields it knows). Read here rather than through
 * src/lib/attribution.ts: a module shared with this island would be split into a chunk of its
 * own, and the visit script would no longer be inlined on every page.
 */
export function parseAttribution(raw: string | null): Record<string, string> | null {
  if (!raw) return null;
  try {
    const value: unknown = JSON.parse(raw);
    if (!value || typeof value !== "object" || Array.isArray(value)) return null;
    return Object.fromEntries(
      Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  } catch {
    return null;
  }
}

/** The browser's recorded first touch under `key` (sessionStorage), or null when none or storage is blocked. */
export function visitAttribution(key: string): Record<string, string> | null {
  try {
    return parseAttribution(window.sessionStorage.getItem(key));
  } catch {
    return null;
  }
}
