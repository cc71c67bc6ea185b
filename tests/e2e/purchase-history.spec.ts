/**
 * /portal/settings/purchase-history against the local stack (docs/product.md, Screens and routes: Portal, Entities and fields, States and transitions,
 * §8): every order newest first with its program's name and image, order reference, date and
 * amount; the status badges' labels and colours; when a refund happened; each program's name leading
 * to it on My Courses; Stripe's receipt where there is one; an unknown
 * program; the empty state; a failed fetch logged and told calmly; nothing cut at 390 px; axe.
 */
import { orderReference } from "../../functions/_shared/order-reference.ts";
import { axeViolations, VIEWPORTS } from "./axe";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { createCustomer, type Customer, type OrderSeed, signIn } from "./customers";

const PATH = "/portal/settings/purchase-history";

async function openHistory(page: Page, customer: Customer) {
  await signIn(page, customer, { next: PATH });
  await expect(page).toHaveURL(new RegExp(`${PATH}$`));
  await expect(page.getByRole("heading", { level: 1, name: "Purchase History" })).toBeVisible();
}

/** The rows of the list, once loaded. */
function rows(page: Page): Locator {
  return page.getByRole("main").locator("li[data-order]");
}

/** An order's date as the page writes it (en-US, the browser's time zone, as here). */
const shortDate = (daysAgo: number) =>
  new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric" }).format(
    new Date(Date.now() - daysAgo * 86_400_000),
  );

test("lists every order newest first, with its program, date, amount and a coloured, capitalised status", async ({
  page,
}) => {
  const orders: OrderSeed[] = [
    { product: "GROWTH_MINDSET", status: "completed", cents: 30_000, daysAgo: 40 },
    { product: "OS_ACCELERATOR", status: "refunded", cents: 299_900, daysAgo: 20 },
    { product: "OS_ACCELERATOR", status: "canceled", cents: 299_900, daysAgo: 10 },
    { product: "AI_ACCELERATOR", status: "failed", cents: 1_500_000, daysAgo: 5 },
    { product: "AI_ACCELERATOR", status: "pending", cents: 1_500_000, daysAgo: 1 },
  ];
  await openHistory(page, await createCustomer({ orders }));

  const expected = [
    ["AI Advisor Accelerator", 1, "$15,000", "Pending", "yellow", "/images/programs/ai-advisor-accelerator.svg"],
    ["AI Advisor Accelerator", 5, "$15,000", "Failed", "grey", "/images/programs/ai-advisor-accelerator.svg"],
    ["Advisor OS Accelerator", 10, "$2,999", "Canceled", "red", "/images/programs/os-accelerator.svg"],
    ["Advisor OS Accelerator", 20, "$2,999", "Refunded", "grey", "/images/programs/os-accelerator.svg"],
    ["Growth Mindset Mastery", 40, "$300", "Completed", "green", "/images/programs/growth-mindset.svg"],
  ] as const;
  await expect(rows(page)).toHaveCount(expected.length);
  for (const [i, [name, daysAgo, amount, label, tone, image]] of expected.entries()) {
    const row = rows(page).nth(i);
    await expect(row.getByRole("heading", { level: 3 })).toHaveText(name);
    // A canceled or failed checkout never put its program on My Courses: its name leads nowhere.
    await expect(row.getByRole("heading", { level: 3 }).getByRole("link")).toHaveCount(
      label === "Canceled" || label === "Failed" ? 0 : 1,
    );
    // The order's day first (a refunded order's refund day follows it).
    await expect(row.locator("time").first()).toHaveText(shortDate(daysAgo));
    await expect(row).toContainText(amount);
    await expect(row.locator("img")).toHaveAttribute("src", image);
    const badge = row.locator("[data-tone]");
    await expect(badge).toHaveText(label);
    await expect(badge).toHaveAttribute("data-tone", tone);
  }

  // The colours as drawn: green, yellow, red, and a grey (equal-ish channels) for the rest.
  const colour = async (label: string) =>
    rows(page)
      .locator("[data-tone]", { hasText: label })
      .first()
      .evaluate((el) => {
        const probe = document.createElement("canvas").getContext("2d")!;
        probe.fillStyle = getComputedStyle(el).color;
        probe.fillRect(0, 0, 1, 1);
        const [r, g, b] = probe.getImageData(0, 0, 1, 1).data;
        return { r: r!, g: g!, b: b! };
      });
  const green = await colour("Completed");
  expect(green.g).toBeGreaterThan(green.r + 40);
  expect(green.g).toBeGreaterThan(green.b + 40);
  const yellow = await colour("Pending");
  expect(Math.min(yellow.r, yellow.g)).toBeGreaterThan(yellow.b + 40);
  const red = await colour("Canceled");
  expect(red.r).toBeGreaterThan(red.g + 60);
  expect(red.r).toBeGreaterThan(red.b + 60);
  for (const label of ["Refunded", "Failed"]) {
    const grey = await colour(label);
    expect(Math.max(grey.r, grey.g, grey.b) - Math.min(grey.r, grey.g, grey.b), label).toBeLessThan(40);
  }
  await expect(rows(page).locator("[data-tone]", { hasText: "Completed" })).toHaveClass(/text-green-/);
  await expect(rows(page).locator("[data-tone]", { hasText: "Pending" })).toHaveClass(/text-yellow-/);
  await expect(rows(page).locator("[data-tone]", { hasText: "Canceled" })).toHaveClass(/text-red-/);
});

test("shows each order's reference, amount and status, refunded too, and Stripe's receipt where it has one", async ({
  page,
  context,
}) => {
  const receipt = "https://pay.stripe.com/receipts/payment/e2e-receipt-growth";
  const customer = await createCustomer({
    orders: [
      { product: "GROWTH_MINDSET", status: "completed", cents: 30_000, daysAgo: 30, receiptUrl: receipt },
      {
        product: "OS_ACCELERATOR",
        status: "refunded",
        cents: 299_900,
        daysAgo: 20,
        receiptUrl: "https://pay.stripe.com/receipts/payment/e2e-receipt-os",
      },
      // A bank debit still clearing: no charge yet, so no receipt.
      { product: "AI_ACCELERATOR", status: "pending", cents: 1_500_000, daysAgo: 1 },
    ],
  });
  const [growth, os, ai] = await Promise.all(customer.checkoutSessionIds!.map(orderReference));
  await openHistory(page, customer);
  await expect(rows(page)).toHaveCount(3);

  const expected = [
    ["AI Advisor Accelerator", ai!, "$15,000", "Pending", null],
    ["Advisor OS Accelerator", os!, "$2,999", "Refunded", "https://pay.stripe.com/receipts/payment/e2e-receipt-os"],
    ["Growth Mindset Mastery", growth!, "$300", "Completed", receipt],
  ] as const;
  const programOnMyCourses = {
    "AI Advisor Accelerator": "/portal#program-ai-accelerator",
    "Advisor OS Accelerator": "/portal#program-os-accelerator",
    "Growth Mindset Mastery": "/portal#program-growth-mindset",
  };
  for (const [i, [name, reference, amount, status, receiptUrl]] of expected.entries()) {
    const row = rows(page).nth(i);
    await expect(row.getByRole("heading", { level: 3 })).toHaveText(name);
    // The name leads to the program on My Courses, a refunded one too (listed there as refunded).
    await expect(row.getByRole("link", { name, exact: true })).toHaveAttribute("href", programOnMyCourses[name]);
    // The refund's day (the order was refunded as it was recorded here: today); no other row has one.
    if (status === "Refunded") await expect(row).toContainText(`Refunded on ${shortDate(0)}`);
    else await expect(row).not.toContainText("Refunded on");
    expect(reference).toMatch(/^[0-9A-F]{8}$/);
    await expect(row.getByText(`Order ${reference}`, { exact: true })).toBeVisible();
    await expect(row).toContainText(amount);
    await expect(row.locator("[data-tone]")).toHaveText(status);
    const link = row.getByRole("link", { name: /^View receipt/ });
    if (receiptUrl === null) {
      await expect(link).toHaveCount(0);
      continue;
    }
    await expect(link).toHaveAccessibleName(`View receipt for order ${reference} (opens in a new tab)`);
    await expect(link).toHaveAttribute("href", receiptUrl);
    await expect(link).toHaveAttribute("target", "_blank");
    await expect(link).toHaveAttribute("rel", /\bnoopener\b/);
  }

  // The receipt opens in a new tab (Stripe's page, answered here), the history stays.
  await context.route("https://pay.stripe.com/**", (route) =>
    route.fulfill({ contentType: "text/html", body: "<title>Receipt</title><h1>Receipt</h1>" }),
  );
  const opened = context.waitForEvent("page");
  await rows(page)
    .nth(2)
    .getByRole("link", { name: /^View receipt/ })
    .click();
  const tab = await opened;
  await expect(tab).toHaveURL(receipt);
  expect(await tab.evaluate(() => window.opener)).toBeNull();
  await expect(page).toHaveURL(new RegExp(`${PATH}$`));
});

test("at 390 px nothing is cut: every order's name, reference, date, amount, status and receipt fit", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const customer = await createCustomer({
    orders: [
      {
        product: "OS_ACCELERATOR",
        status: "refunded",
        cents: 299_900,
        daysAgo: 20,
        receiptUrl: "https://pay.stripe.com/receipts/payment/e2e-narrow",
      },
      {
        product: "AI_ACCELERATOR",
        status: "completed",
        cents: 1_500_000,
        daysAgo: 3,
        receiptUrl: "https://pay.stripe.com/receipts/payment/e2e-narrow-2",
      },
      { product: "GROWTH_MINDSET", status: "pending", cents: 30_000, daysAgo: 1 },
    ],
  });
  await openHistory(page, customer);
  await expect(rows(page)).toHaveCount(3);
  await expect(
    rows(page)
      .first()
      .getByText(/^Order [0-9A-F]{8}$/),
  ).toBeVisible();

  // No sideways scrolling, and every piece of every row inside its row, none clipped.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const cut = await rows(page).evaluateAll((items) =>
    items.flatMap((row) => {
      const box = row.getBoundingClientRect();
      return Array.from(row.querySelectorAll<HTMLElement>("h3, p, span, a, time, img"))
        .filter((el) => !el.closest(".sr-only") && el.getClientRects().length > 0)
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.left < box.left - 0.5 || r.right > box.right + 0.5 || el.scrollWidth > el.clientWidth + 1;
        })
        .map((el) => `${row.getAttribute("data-order")}: ${el.tagName} "${el.textContent}"`);
    }),
  );
  expect(cut).toEqual([]);
  for (const label of ["Refunded", "Completed", "Pending"])
    await expect(rows(page).getByText(label, { exact: true })).toBeVisible();
  await expect(rows(page).getByText(/^Refunded on /)).toBeVisible();
});

test("names a purchase of a program the catalogue does not know 'Course Purchase'", async ({ page }) => {
  await openHistory(
    page,
    await createCustomer({ orders: [{ product: "RETIRED_COURSE", status: "completed", cents: 1999 }] }),
  );
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).getByRole("heading", { level: 3 })).toHaveText("Course Purchase");
  await expect(rows(page)).toContainText("$19.99");
  await expect(rows(page).locator("img")).toHaveCount(0);
});

test("shows an empty history leading to the programs", async ({ page }) => {
  await openHistory(page, await createCustomer());
  await expect(page.getByText("No purchases yet.")).toBeVisible();
  await expect(page.getByRole("main").getByRole("link", { name: "Browse programs" })).toHaveAttribute(
    "href",
    "/programs",
  );
});

test("logs a failed fetch and says so calmly, never showing the raw error", async ({ page }) => {
  const customer = await createCustomer({
    orders: [{ product: "GROWTH_MINDSET", status: "completed", cents: 30_000 }],
  });
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await page.route("**/rest/v1/stripe_user_orders**", (route) =>
    route.fulfill({
      status: 500,
      contentType: "application/json",
      body: JSON.stringify({ code: "XX000", message: "internal secret detail", details: null, hint: null }),
    }),
  );
  await openHistory(page, customer);
  await expect(page.getByText("We couldn’t load your purchase history just now.", { exact: false })).toBeVisible();
  await expect(page.getByRole("main")).not.toContainText("internal secret detail");
  await expect(rows(page)).toHaveCount(0);
  expect(errors.some((e) => e.includes("Could not load your orders"))).toBe(true);
});

test("axe finds no violations on the purchase history, at two sizes", async ({ page }) => {
  await openHistory(
    page,
    await createCustomer({
      orders: [
        { product: "GROWTH_MINDSET", status: "completed", cents: 30_000, daysAgo: 3 },
        { product: "AI_ACCELERATOR", status: "pending", cents: 1_500_000, daysAgo: 2 },
        { product: "OS_ACCELERATOR", status: "canceled", cents: 299_900, daysAgo: 1 },
        {
          product: "OS_ACCELERATOR",
          status: "refunded",
          cents: 299_900,
          daysAgo: 0,
          receiptUrl: "https://pay.stripe.com/receipts/payment/e2e-axe",
        },
      ],
    }),
  );
  await expect(rows(page)).toHaveCount(4);
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    expect(await axeViolations(page)).toEqual([]);
  }
});
