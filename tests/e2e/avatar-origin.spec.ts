/**
 * Whose avatar a page shows: only the customer's own picture in the site's own Supabase project
 * (src/features/portal/logic.ts, ownAvatarUrl). The database takes any project's or this
 * machine's address (supabase/migrations/20261123000100_hardening.sql), and a customer can write
 * their own profile through the API; the local build shows the local stack's pictures, a
 * production build only the hosted project's, never one on localhost.
 */
import { expect, type Page, test } from "@playwright/test";
import { createClient } from "@supabase/supabase-js";
import { apiKey } from "@advisor-accelerator/local-stack";
import { EXAMPLE_PROJECT } from "../support/example-project";
import { createCustomer, type Customer, signIn } from "./customers";
import { LOCAL_SITE, PRODUCTION_SITE } from "./servers";

/** Writes the customer's own profile as they could through the API, past the site's pages. */
async function writeProfile(customer: Customer, row: { full_name: string; avatar_url: string }) {
  const own = createClient(LOCAL_SITE, apiKey("anon"), { auth: { persistSession: false, autoRefreshToken: false } });
  expect((await own.auth.signInWithPassword({ email: customer.email, password: customer.password })).error).toBeNull();
  expect((await own.from("profiles").upsert({ id: customer.id, ...row })).error).toBeNull();
}

/** The avatar address the local stack hands out for the customer's picture. */
const localAvatar = (customer: Customer) =>
  `${LOCAL_SITE}/storage/v1/object/public/avatars/${customer.id}/${customer.id}.png?v=1790000000000`;

/** The addresses of the page's pictures that are not the site's own files (theirs are relative). */
async function absolutePictures(page: Page) {
  return page
    .locator("img")
    .evaluateAll((images) =>
      images.map((image) => (image as HTMLImageElement).getAttribute("src") ?? "").filter((src) => src.includes("://")),
    );
}

test("the local build shows no avatar of another origin, even one the database took", async ({ page }) => {
  const customer = await createCustomer();
  // Allowed by the database's check (this machine, another port), not this site's storage.
  const foreign = `http://127.0.0.1:9/storage/v1/object/public/avatars/${customer.id}/${customer.id}.png`;
  await writeProfile(customer, { full_name: "Dana Foreign", avatar_url: foreign });
  const asked: string[] = [];
  page.on("request", (request) => {
    if (request.url().startsWith("http://127.0.0.1:9/")) asked.push(request.url());
  });
  await signIn(page, customer, { next: "/portal/settings" });
  await expect(page.getByLabel("Full name")).toHaveValue("Dana Foreign");
  await expect(page.getByRole("img", { name: "Your profile picture" })).toHaveText("D");
  expect(await absolutePictures(page)).toEqual([]);
  expect(asked).toEqual([]);
});

test.describe("a production build", () => {
  test.use({ baseURL: PRODUCTION_SITE });

  test("shows no avatar on localhost: only the hosted project's", async ({ page }) => {
    const customer = await createCustomer();
    await writeProfile(customer, { full_name: "Dana Localhost", avatar_url: localAvatar(customer) });
    // The build talks to a hosted project that does not exist (tests/support/example-project.ts):
    // its Auth and REST answer from the local stack here, as the hosted project would, the
    // project's public key swapped for the stack's.
    const publicKey = EXAMPLE_PROJECT.PUBLIC_SUPABASE_ANON_KEY;
    await page.route(`${EXAMPLE_PROJECT.PUBLIC_SUPABASE_URL}/**`, async (route) => {
      const url = new URL(route.request().url());
      const headers: Record<string, string> = { ...route.request().headers(), apikey: apiKey("anon") };
      if (headers.authorization === `Bearer ${publicKey}`) headers.authorization = `Bearer ${apiKey("anon")}`;
      const response = await route.fetch({ url: `${LOCAL_SITE}${url.pathname}${url.search}`, headers });
      await route.fulfill({ response });
    });
    const asked: string[] = [];
    page.on("request", (request) => {
      if (request.url().startsWith(`${LOCAL_SITE}/storage/`)) asked.push(request.url());
    });

    await signIn(page, customer);
    await expect(page).toHaveURL(/\/portal$/);
    // The profile arrived (its name greets), and its picture is not shown: the initial is.
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Welcome back, Dana");
    await expect(page.getByRole("button", { name: "Account" })).toContainText("D");
    expect(await absolutePictures(page)).toEqual([]);
    await page.goto("/portal/settings");
    await expect(page.getByLabel("Full name")).toHaveValue("Dana Localhost");
    await expect(page.getByRole("img", { name: "Your profile picture" })).toHaveText("D");
    expect(await absolutePictures(page)).toEqual([]);
    expect(asked).toEqual([]);
  });
});
