/**
 * /portal/settings against the local stack (docs/product.md, Screens and routes: Portal, Validation rules, Calls, Messages and errors): the tabs, the
 * contact form saved and still there after a reload, the e-mail read-only, the avatar uploaded
 * (a real PNG), replaced by another image (the picture shown changes), a non-image and an
 * oversized image refused before anything is uploaded, the messages in a status region, axe.
 */
import { axeViolations, VIEWPORTS } from "./axe";
import { expect, type Page, test } from "@playwright/test";
import { createClient } from "@supabase/supabase-js";
import { apiKey } from "@advisor-accelerator/local-stack";
import { JPEG, png } from "../support/images";
import { createCustomer, type Customer, serviceClient, signIn } from "./customers";
import { LOCAL_SITE } from "./servers";

/**
 * The customer's profile row, read as the customer (the service role has no grant on profiles:
 * only their owner reads them).
 */
async function storedProfile(customer: Customer) {
  const client = createClient(LOCAL_SITE, apiKey("anon"), { auth: { persistSession: false, autoRefreshToken: false } });
  const signedIn = await client.auth.signInWithPassword({ email: customer.email, password: customer.password });
  expect(signedIn.error).toBeNull();
  const { data, error } = await client.from("profiles").select("*").eq("id", customer.id).maybeSingle();
  expect(error).toBeNull();
  return data;
}

async function openSettings(page: Page, customer: Customer) {
  await signIn(page, customer, { next: "/portal/settings" });
  await expect(page).toHaveURL(/\/portal\/settings$/);
  await expect(page.getByRole("button", { name: "Save Changes" })).toBeVisible();
}

/** The status region's text. */
const status = (page: Page) => page.getByRole("status").filter({ hasText: /\S/ });

/** The colour of the picture's middle pixel, as the browser decoded it. */
async function shownColour(page: Page): Promise<number[]> {
  const picture = page.getByRole("img", { name: "Your profile picture" });
  await expect(picture).toHaveJSProperty("complete", true);
  return picture.evaluate((img: HTMLImageElement) => {
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const context = canvas.getContext("2d")!;
    context.drawImage(img, 0, 0);
    const { data } = context.getImageData(Math.floor(img.naturalWidth / 2), Math.floor(img.naturalHeight / 2), 1, 1);
    return [data[0]!, data[1]!, data[2]!];
  });
}

test("the tabs lead to both settings pages and mark the current one", async ({ page }) => {
  await openSettings(page, await createCustomer());
  const tabs = page.getByRole("navigation", { name: "Account sections" });
  await expect(tabs.getByRole("link", { name: "Contact & Settings" })).toHaveAttribute("aria-current", "page");
  await expect(tabs.getByRole("link", { name: "Purchase History" })).not.toHaveAttribute("aria-current", "page");
  await tabs.getByRole("link", { name: "Purchase History" }).click();
  await expect(page).toHaveURL(/\/portal\/settings\/purchase-history$/);
  await expect(
    page.getByRole("navigation", { name: "Account sections" }).getByRole("link", { name: "Purchase History" }),
  ).toHaveAttribute("aria-current", "page");
});

test("saves the contact details, says so, and shows them again after a reload", async ({ page }) => {
  const customer = await createCustomer();
  await openSettings(page, customer);

  const email = page.getByLabel("Email");
  await expect(email).toHaveValue(customer.email);
  await expect(email).toHaveAttribute("readonly", "");
  await expect(email).toHaveAttribute("autocomplete", "email");

  const details: [string, string, string][] = [
    ["Full name", "Dana Whitaker", "name"],
    ["Address", "100 Congress Ave", "address-line1"],
    ["Address line 2 (optional)", "Suite 400", "address-line2"],
    ["City", "Austin", "address-level2"],
    ["State / Province", "TX", "address-level1"],
    ["Country", "United States", "country-name"],
    ["ZIP / Postal code", "78701", "postal-code"],
  ];
  for (const [label, value, autocomplete] of details) {
    const field = page.getByLabel(label, { exact: true });
    await expect(field).toHaveValue("");
    await expect(field).toHaveAttribute("autocomplete", autocomplete);
    await field.fill(value);
  }
  await page.getByRole("button", { name: "Save Changes" }).click();
  await expect(status(page)).toHaveText("Profile updated successfully!");
  await expect(status(page)).toHaveAttribute("aria-live", "polite");

  await page.reload();
  for (const [label, value] of details) await expect(page.getByLabel(label, { exact: true })).toHaveValue(value);

  // Saved as the customer's own profile; the database set updated_at.
  const data = await storedProfile(customer);
  expect(data).toMatchObject({ full_name: "Dana Whitaker", zip: "78701", address_2: "Suite 400" });
  expect(Date.now() - Date.parse(data!.updated_at)).toBeLessThan(60_000);

  // Clearing a field saves it empty; the welcome uses the new name.
  await page.getByLabel("Address line 2 (optional)").fill("");
  await page.getByRole("button", { name: "Save Changes" }).click();
  await expect(status(page)).toHaveText("Profile updated successfully!");
  expect((await storedProfile(customer))!.address_2).toBeNull();
  await page.getByRole("banner").getByRole("link", { name: "Courses" }).click();
  await expect(page.getByText(`Dana Whitaker · ${customer.email}`)).toBeVisible();
});

test("shows the backend's message when the profile cannot be saved", async ({ page }) => {
  await openSettings(page, await createCustomer());
  await page.route("**/rest/v1/profiles**", (route) =>
    route.request().method() === "POST"
      ? route.fulfill({
          status: 400,
          contentType: "application/json",
          body: JSON.stringify({ code: "23514", message: "value too long for type", details: null, hint: null }),
        })
      : route.continue(),
  );
  await page.getByLabel("Full name").fill("Dana");
  await page.getByRole("button", { name: "Save Changes" }).click();
  await expect(status(page)).toHaveText("Error updating profile: value too long for type");
});

test("says calmly when the profile cannot be loaded, and offers no form that would overwrite it", async ({ page }) => {
  const customer = await createCustomer();
  await page.route("**/rest/v1/profiles**", (route) =>
    route.request().method() === "GET"
      ? route.fulfill({
          status: 500,
          contentType: "application/json",
          body: JSON.stringify({ code: "XX000", message: "internal secret detail", details: null, hint: null }),
        })
      : route.continue(),
  );
  await signIn(page, customer, { next: "/portal/settings" });
  await expect(page).toHaveURL(/\/portal\/settings$/);
  await expect(page.getByText("We couldn’t load your details just now.", { exact: false })).toBeVisible();
  await expect(page.getByRole("button", { name: "Save Changes" })).toHaveCount(0);
  await expect(page.getByLabel("Upload new picture")).toHaveCount(0);
  await expect(page.getByRole("main")).not.toContainText("internal secret detail");
});

test("uploads an avatar, replaces it with another image, and shows the new one at once", async ({ page }) => {
  const customer = await createCustomer();
  await openSettings(page, customer);
  await expect(page.getByText("Upload a 100x100px image")).toBeVisible();
  const input = page.getByLabel("Upload new picture");
  await expect(input).toHaveAttribute("accept", "image/png,image/jpeg,image/webp");
  await expect(input).toHaveAccessibleDescription(/Upload a 100x100px image/);

  await input.setInputFiles({ name: "red.png", mimeType: "image/png", buffer: png([220, 20, 20], 4) });
  await expect(status(page)).toHaveText("Avatar updated successfully!");
  const picture = page.getByRole("img", { name: "Your profile picture" });
  const path = `${customer.id}/${customer.id}.png`;
  await expect(picture).toHaveAttribute("src", new RegExp(`/storage/v1/object/public/avatars/${path}\\?v=\\d+$`));
  const first = await picture.getAttribute("src");
  expect(await shownColour(page)).toEqual([220, 20, 20]);
  // The header's Account button shows it too.
  await expect(page.getByRole("banner").locator("img")).toHaveAttribute("src", first!);

  // The same file name again, another picture: a new version, and the browser shows the new one.
  await input.setInputFiles({ name: "blue.png", mimeType: "image/png", buffer: png([20, 20, 220], 4) });
  await expect(picture).not.toHaveAttribute("src", first!);
  const second = await picture.getAttribute("src");
  expect(second!.split("?")[0]).toBe(first!.split("?")[0]);
  await expect.poll(() => shownColour(page)).toEqual([20, 20, 220]);

  // A JPEG is stored beside it as .jpg, and becomes the avatar.
  await input.setInputFiles({ name: "photo.jpeg", mimeType: "image/jpeg", buffer: JPEG });
  await expect(picture).toHaveAttribute("src", new RegExp(`/avatars/${customer.id}/${customer.id}\\.jpg\\?v=\\d+$`));

  // Kept: the profile holds the URL, and a reload shows the picture.
  const data = await storedProfile(customer);
  expect(data!.avatar_url).toBe(await picture.getAttribute("src"));
  await page.reload();
  await expect(page.getByRole("img", { name: "Your profile picture" })).toHaveAttribute("src", data!.avatar_url!);
  const bytes = await (await page.request.get(data!.avatar_url!)).body();
  expect(bytes.equals(JPEG)).toBe(true);
});

test("refuses a file that is not an image, and one over 2 MB, before uploading anything", async ({ page }) => {
  const customer = await createCustomer();
  await openSettings(page, customer);
  const uploads: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/storage/v1/")) uploads.push(request.url());
  });
  const input = page.getByLabel("Upload new picture");

  await input.setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not a picture") });
  await expect(status(page)).toHaveText("Error uploading avatar: Please choose a PNG, JPEG or WebP image.");

  await page.getByRole("button", { name: "Dismiss" }).click();
  await expect(status(page)).toHaveCount(0);
  const big = Buffer.concat([png([1, 2, 3], 4), Buffer.alloc(2 * 1024 * 1024)]);
  await input.setInputFiles({ name: "huge.png", mimeType: "image/png", buffer: big });
  await expect(status(page)).toHaveText("Error uploading avatar: The image must be 2 MB or smaller.");

  expect(uploads).toEqual([]);
  const listed = await serviceClient().storage.from("avatars").list(customer.id);
  expect(listed.error).toBeNull();
  expect(listed.data).toEqual([]);
  const publicUrl = `/storage/v1/object/public/avatars/${customer.id}/${customer.id}.png`;
  expect((await page.request.get(publicUrl)).ok()).toBe(false);
  expect((await storedProfile(customer))?.avatar_url ?? null).toBeNull();
  await expect(page.getByRole("img", { name: "Your profile picture" })).toHaveText("A");
});

test("shows the bucket's own refusal when it refuses an upload", async ({ page }) => {
  await openSettings(page, await createCustomer());
  await page.route("**/storage/v1/object/avatars/**", (route) =>
    route.fulfill({
      status: 400,
      contentType: "application/json",
      body: JSON.stringify({
        statusCode: "415",
        error: "invalid_mime_type",
        message: "mime type image/png is not supported",
      }),
    }),
  );
  await page.getByLabel("Upload new picture").setInputFiles({
    name: "a.png",
    mimeType: "image/png",
    buffer: png([0, 0, 0], 4),
  });
  await expect(status(page)).toHaveText("Error uploading avatar: mime type image/png is not supported");
});

test("works by keyboard alone: Tab reaches the picture upload and every field, Enter saves", async ({ page }) => {
  await openSettings(page, await createCustomer());
  const reached: string[] = [];
  await page
    .getByRole("navigation", { name: "Account sections" })
    .getByRole("link", { name: "Purchase History" })
    .focus();
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press("Tab");
    reached.push(
      await page.evaluate(() => (document.activeElement as HTMLInputElement).labels?.[0]?.textContent ?? ""),
    );
  }
  expect(reached.slice(0, 9).map((label) => label.trim())).toEqual([
    "Upload new picture",
    "Email",
    "Full name",
    "Address",
    "Address line 2 (optional)",
    "City",
    "State / Province",
    "Country",
    "ZIP / Postal code",
  ]);
  await page.getByLabel("City").focus();
  await page.keyboard.type("Denver");
  await page.keyboard.press("Enter");
  await expect(status(page)).toHaveText("Profile updated successfully!");
});

test("axe finds no violations on the settings page, with a message shown", async ({ page }) => {
  await openSettings(page, await createCustomer());
  await page.getByRole("button", { name: "Save Changes" }).click();
  await expect(status(page)).toHaveText("Profile updated successfully!");
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    expect(await axeViolations(page)).toEqual([]);
  }
});
