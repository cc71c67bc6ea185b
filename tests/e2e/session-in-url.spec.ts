/**
 * A session planted in an address (login CSRF): a link to `/portal#access_token=…&refresh_token=…`
 * with another account's real tokens would have supabase-js sign the visitor in to that account,
 * on any page that loads it. Only the reset page takes a session from its address, from Auth's
 * redirect of a reset or an invite, and never over another account's (src/lib/url-session.ts,
 * docs/operations.md, Accounts and the portal): these tries plant account B's live session on
 * every page that loads supabase-js, signed out and signed in as A, and count what got through.
 */
import { type BrowserContext, expect, type Page, type Request, test } from "@playwright/test";
import { createClient } from "@supabase/supabase-js";
import { apiKey } from "@advisor-accelerator/local-stack";
import { logTallies, Tally } from "../support/hostile";
import { axeViolations } from "./axe";
import { createCustomer, type Customer, signIn } from "./customers";
import { LOCAL_SITE } from "./servers";

const SESSION_KEY = "sb-localhost-auth-token";

/** The pages that load supabase-js (src/integrations/security-headers.ts, SESSION_PATHS), a key lookup and a lesson among them. */
const PAGES = [
  "/portal",
  "/portal/settings",
  "/portal/settings/purchase-history",
  "/portal/courses/growth-mindset",
  "/portal/courses/growth-mindset/find-your-production-ceiling-belief",
  "/login",
  "/forgot-password",
  "/checkout/OS_ACCELERATOR",
  "/checkout/os_accelerator",
  "/checkout/success",
];

const tally = new Tally("fragment sessions");
test.afterAll(() => logTallies(tally));

/** A live session of `customer`, signed in as the product signs in, with Auth's redirect parameters. */
async function liveSession(customer: Customer) {
  const client = createClient(LOCAL_SITE, apiKey("anon"), { auth: { persistSession: false, autoRefreshToken: false } });
  const { data, error } = await client.auth.signInWithPassword({ email: customer.email, password: customer.password });
  expect(error).toBeNull();
  const session = data.session!;
  return (type: string | null) =>
    new URLSearchParams({
      access_token: session.access_token,
      refresh_token: session.refresh_token,
      expires_in: String(session.expires_in),
      expires_at: String(session.expires_at),
      token_type: "bearer",
      ...(type === null ? {} : { type }),
    }).toString();
}

/** Every hostile address for B's session: in the fragment and in the query, typed as a reset, a magic link, or not at all. */
function hostileAddresses(params: (type: string | null) => string): string[] {
  const addresses = PAGES.flatMap((path) => [
    `${path}#${params("recovery")}`,
    `${path}#${params("magiclink")}`,
    `${path}#${params(null)}`,
    `${path}?${params("signup")}`,
  ]);
  // The reset page takes Auth's redirect of a reset or an invite, and nothing else.
  for (const type of ["magiclink", "signup", "email_change", null]) addresses.push(`/reset-password#${params(type)}`);
  return addresses;
}

/**
 * Opens `address` and waits until supabase-js is done with it; then whether B's session was taken:
 * stored on the device, or B's token sent to Auth to sign in with (what supabase-js does first).
 */
async function plant(page: Page, address: string, b: Customer): Promise<boolean> {
  let sentB = false;
  const token = new URLSearchParams(address.split(/[#?]/)[1]).get("access_token");
  const watch = (request: Request) => {
    if (new URL(request.url()).pathname === "/auth/v1/user" && request.headers().authorization === `Bearer ${token}`)
      sentB = true;
  };
  page.on("request", watch);
  // From another document: a new fragment on the same page would only scroll, not load it again.
  await page.goto("about:blank");
  await page.goto(address);
  await page.waitForLoadState("networkidle");
  page.off("request", watch);
  const stored = await page.evaluate((key) => sessionStorage.getItem(key) ?? localStorage.getItem(key), SESSION_KEY);
  const storedB = stored !== null && (JSON.parse(stored) as { user?: { id?: string } }).user?.id === b.id;
  return sentB || storedB;
}

/** How many addresses are tried at once, each lane in a browser context of its own. */
const LANES = 4;

/**
 * Plants each address in turn in one of LANES contexts made by `open` (a lane keeps its page, as a
 * visitor would, and `between` runs after each try); answers the paths whose address was taken.
 * Each try waits for the network to go quiet, mostly idle time, so lanes side by side cost little.
 */
async function plantAll(
  open: () => Promise<BrowserContext>,
  addresses: string[],
  b: Customer,
  between: (page: Page) => Promise<unknown> = async () => {},
): Promise<{ accepted: string[]; pages: Page[] }> {
  const accepted: string[] = [];
  const pages = await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      const page = await (await open()).newPage();
      for (let i = lane; i < addresses.length; i += LANES) {
        const taken = await plant(page, addresses[i]!, b);
        tally.count(taken);
        if (taken) accepted.push(addresses[i]!.split(/[#?]/)[0]!);
        await between(page);
      }
      return page;
    }),
  );
  return { accepted, pages };
}

test("B's session in any page's address does not sign a signed-out visitor in", async ({ browser }) => {
  test.setTimeout(120_000);
  const b = await createCustomer({ name: "planted" });
  const addresses = hostileAddresses(await liveSession(b));
  const { accepted, pages } = await plantAll(
    () => browser.newContext(),
    addresses,
    b,
    (page) => page.evaluate(() => (localStorage.clear(), sessionStorage.clear())),
  );
  expect(accepted).toEqual([]);
  // Nobody is signed in: the portal asks for a sign-in.
  const page = pages[0]!;
  await page.goto(`/portal#${(await liveSession(b))("recovery")}`);
  await expect(page).toHaveURL(/\/login\?next=%2Fportal$/);
  for (const lane of pages) await lane.context().close();
});

test("B's session in any page's address leaves A signed in as A", async ({ browser, page }) => {
  test.setTimeout(120_000);
  const a = await createCustomer({ name: "victim" });
  const b = await createCustomer({ name: "planted" });
  await signIn(page, a);
  await expect(page).toHaveURL(/\/portal$/);
  // Every lane starts signed in as A, with the session the sign-in stored (Remember me: localStorage).
  const signedInAsA = await page.context().storageState();
  const params = await liveSession(b);
  // The reset page's own redirect types too: another account's link never replaces A's session.
  const { accepted, pages } = await plantAll(
    () => browser.newContext({ storageState: signedInAsA }),
    [...hostileAddresses(params), `/reset-password#${params("recovery")}`, `/reset-password#${params("invite")}`],
    b,
  );
  expect(accepted).toEqual([]);
  for (const lane of pages) {
    await lane.goto("/portal");
    await expect(lane.getByText(`Signed in as ${a.email}`)).toBeVisible();
    await lane.context().close();
  }
});

test("the reset page says a link is for another account, and opens it only once A signs out", async ({ page }) => {
  const a = await createCustomer({ name: "signed-in" });
  const b = await createCustomer({ name: "link-owner" });
  await signIn(page, a);
  await expect(page).toHaveURL(/\/portal$/);
  await page.goto(`/reset-password#${(await liveSession(b))("recovery")}`);
  await expect(page.getByRole("heading", { name: "This link is for another account" })).toBeVisible();
  await expect(page.getByRole("alert")).toContainText(`You are signed in as ${a.email}`);
  await expect(page.getByRole("alert")).toContainText("Nothing has changed.");
  await expect(page.getByLabel("New password", { exact: true })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Go to your portal" })).toHaveAttribute("href", "/portal");
  expect(await axeViolations(page)).toEqual([]);

  // The person chooses: signed out here, the link opens its own account, named on the form.
  await page.getByRole("button", { name: "Sign Out and Use This Link" }).click();
  await expect(page.getByText(`Choose a new password for ${b.email}.`)).toBeVisible();
  await expect(page).toHaveURL(/\/reset-password#?$/);
  // Kept for this tab only, like the session a reset link's Continue opens.
  const where = await page.evaluate((key) => [!!sessionStorage.getItem(key), !!localStorage.getItem(key)], SESSION_KEY);
  expect(where).toEqual([true, false]);
});

test("an e-mailed link's Continue says who is signed in before it opens the link's account", async ({
  page,
  baseURL,
}) => {
  const a = await createCustomer({ name: "signed-in" });
  await signIn(page, a);
  await expect(page).toHaveURL(/\/portal$/);
  const link = new URL("/reset-password", baseURL);
  link.searchParams.set("token_hash", "0123456789abcdef0123456789abcdef0123456789abcdef01234567");
  link.searchParams.set("type", "recovery");
  await page.goto(link.href);
  await expect(page.getByRole("button", { name: "Continue" })).toBeVisible();
  await expect(
    page.getByText(`You are signed in as ${a.email}. Continue signs you out of it on this device`),
  ).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  // Until Continue, A's session is untouched.
  await page.goto("/portal");
  await expect(page.getByText(`Signed in as ${a.email}`)).toBeVisible();
});
