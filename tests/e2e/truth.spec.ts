/**
 * Truth in selling, on the local stack's build of the site as it stands:
 * - every item content marks `sample: true` shows "Sample" beside it: each sample person, quote,
 *   endorser, figure's source, the contact line and the cohort's date;
 * - one price per offer, said plainly: the sales pages' coached offers say they are sold by
 *   application and name the program's own price with its checkout; the program pages and the
 *   checkout name the coached offer with the way to apply;
 * - the cohort's date before the payment: the AI program's page, /purchase-course, /programs and the
 *   checkout say which cohort a buyer joins and when (or, on a later day with no cohort open, that
 *   enrolment is closed, with no way to pay); a purchase's success page and access e-mail say it
 *   after, the e-mail with the first day as a calendar file.
 * What is expected is worked out from content/ (tests/e2e/cohorts.ts), not written here.
 */
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, type Locator, test } from "@playwright/test";
import { load } from "js-yaml";
import { addDays, formatDay } from "@advisor-accelerator/shared/cohort.ts";
import { formatCents } from "../../packages/shared/money.ts";
import { offerPrice } from "../../src/lib/offer.ts";
import { contentDir, loadProgramEntries } from "../unit/content-files";
import { COHORT_COPY, cohortLine, cohortOf, programOf } from "./cohorts";
import { createCustomer, lastMailTo, signIn } from "./customers";

type Entry = Record<string, unknown> & { sample?: boolean };
const read = <T>(path: string) => load(readFileSync(join(contentDir, path), "utf8")) as T;
const folder = <T>(dir: string) =>
  readdirSync(join(contentDir, dir))
    .filter((file) => file.endsWith(".yaml"))
    .map((file) => read<T>(`${dir}/${file}`));
const copy = read<{
  offers: { byApplication: string; alone: { text: string; buy: string }; coached: { text: string; apply: string } };
  offer: { perMonth: string };
}>("shared-copy.yaml");
const offers = read<Record<string, { program: string; priceCents: number; monthlyPriceCents?: number }>>("offers.yaml");

/** The "Sample" label, as assistive technology reads it. */
const SAMPLE = "Sample content";
const AI = "AI_ACCELERATOR";

/** A program's coached offer's price, as the pages write it. */
function coachedPrice(programId: string): string {
  const offer = Object.values(offers).find((o) => o.program === programId)!;
  return offerPrice(offer, formatCents, (cents) => copy.offer.perMonth.replace("{amount}", formatCents(cents)));
}

test.describe("sample content is labelled where it shows", () => {
  const coaches = folder<Entry & { name: string; programs: string[] }>("coaches");
  const testimonials = folder<Entry & { name: string; programs: string[] }>("testimonials");
  const endorsements = Object.values(
    read<Record<string, Entry & { author: string; firm: string }>>("endorsements.yaml"),
  );
  const stats = Object.values(read<Record<string, Entry & { source: string }>>("stats.yaml"));

  test("the home page: each sample coach, endorser, endorser's firm and statistic's source", async ({ page }) => {
    await page.goto("/");
    for (const coach of coaches.filter((c) => c.sample)) {
      const card = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: coach.name }) });
      await expect(card).toContainText(SAMPLE);
    }
    const strip = page.getByRole("list", { name: "Endorsed by" });
    for (const endorser of endorsements.filter((e) => e.sample)) {
      await expect(strip.getByRole("listitem").filter({ hasText: endorser.firm }).first()).toContainText(SAMPLE);
      // The carousel's slides are named under it, with the label (src/components/SampleQuotes.astro).
      await expect(
        page.getByRole("paragraph").filter({ hasText: /Sample quotes?, written for layout:/ }),
      ).toContainText(endorser.author);
    }
    const sources = page.getByRole("list", { name: "Sources" }).first();
    for (const stat of stats.filter((s) => s.sample)) {
      const words = stat.source.replace(/\s+/g, " ").trim().slice(0, 40);
      await expect(sources.getByRole("listitem").filter({ hasText: words })).toContainText(SAMPLE);
    }
  });

  test("the program pages: each sample testimonial and coach, and the cohort's date", async ({ page }) => {
    for (const program of loadProgramEntries()) {
      await page.goto(program.page);
      for (const person of [...testimonials, ...coaches].filter((t) => t.sample && t.programs.includes(program.id))) {
        await expect(page.getByRole("listitem").filter({ hasText: person.name }).first()).toContainText(SAMPLE);
      }
      const cohort = cohortOf(program.checkoutKey);
      if (cohort) {
        const line = page.getByText(cohortLine(cohort), { exact: true });
        await expect(line).toBeVisible();
        if (programOf(program.checkoutKey).cohort?.sample) await expect(line.locator("..")).toContainText(SAMPLE);
      }
    }
  });

  test("/transformation: each sample testimonial, in the stories or named under the carousel", async ({ page }) => {
    await page.goto("/transformation");
    for (const person of testimonials.filter((t) => t.sample && t.programs.includes("ai-advisor-accelerator"))) {
      const card = page.getByRole("listitem").filter({ hasText: person.name });
      const note = page
        .getByRole("paragraph")
        .filter({ hasText: /Sample quotes?, written for layout:/ })
        .filter({ hasText: person.name });
      await expect(card.or(note).first()).toContainText(SAMPLE);
    }
  });

  test("a legal page still a draft: beside its date", async ({ page }) => {
    for (const file of readdirSync(join(contentDir, "legal"))) {
      const draft = /^sample: true$/m.test(readFileSync(join(contentDir, "legal", file), "utf8"));
      await page.goto(`/${file.replace(/\.md$/, "")}`);
      const updated = page.getByText(/^Last updated/);
      if (draft) await expect(updated).toContainText(SAMPLE);
      else await expect(updated).not.toContainText(SAMPLE);
    }
  });

  test("the contact line of a lead page and the footer of the others", async ({ page }) => {
    const contact = read<{ site: { contact: Entry & { phone: string; email: string } } }>("site.yaml").site.contact;
    const expectLabelled = async (where: Locator) => {
      if (contact.sample) await expect(where).toContainText(SAMPLE);
      else await expect(where).not.toContainText(SAMPLE);
    };
    await page.goto("/get-started-ai");
    await expectLabelled(page.getByText(/^Prefer to write or call\?/));
    // The footer of the other pages gives the address.
    await page.goto("/");
    await expectLabelled(page.getByRole("contentinfo").getByRole("paragraph").filter({ hasText: contact.email }));
  });
});

test.describe("one price per offer, said plainly", () => {
  for (const [path, key] of [
    ["/transformation", AI],
    ["/mindset", "GROWTH_MINDSET"],
  ] as const) {
    test(`${path}: the coached offer says it is sold by application, and names the program's own price and checkout`, async ({
      page,
    }) => {
      const program = programOf(key);
      await page.goto(path);
      const offer = page.getByRole("region", { name: /^Everything/ });
      await expect(offer).toContainText(copy.offers.byApplication);
      await expect(offer).toContainText(copy.offers.alone.text.replace("{price}", formatCents(program.priceCents)));
      await expect(offer.getByRole("link", { name: `${copy.offers.alone.buy} (${program.name})` })).toHaveAttribute(
        "href",
        `/checkout/${key}`,
      );
    });
  }

  test("the program pages and their checkouts name the coached offer and link to apply", async ({ page }) => {
    for (const program of loadProgramEntries().filter((p) => Object.values(offers).some((o) => o.program === p.id))) {
      const key = program.checkoutKey;
      const line = copy.offers.coached.text.replace("{price}", coachedPrice(program.id));
      for (const path of [program.page, `/checkout/${key}`]) {
        await page.goto(path);
        const paragraph = page.getByRole("paragraph").filter({ hasText: line });
        await expect(paragraph).toBeVisible();
        await expect(
          paragraph.getByRole("link", { name: new RegExp(`^${copy.offers.coached.apply}`) }),
        ).toHaveAttribute("href", program.applyPage);
      }
    }
    // A program without a coached offer names none.
    await page.goto(programOf("OS_ACCELERATOR").page);
    await expect(page.getByText(copy.offers.coached.text.split("{price}")[0]!)).toHaveCount(0);
  });
});

test.describe("the cohort's date before the payment", () => {
  const program = programOf(AI);

  test("the program page, /purchase-course, /programs and the checkout name the cohort a buyer joins today", async ({
    page,
  }) => {
    const cohort = cohortOf(AI);
    if (!cohort) {
      // Content's cohorts have all closed to new buyers (npm run launch:check says so): the pages say it.
      await page.goto(`/checkout/${AI}`);
      await expect(page.getByRole("heading", { name: "Enrolment is closed" })).toBeVisible();
      return;
    }
    const line = cohortLine(cohort);
    for (const path of [program.page, "/purchase-course", "/programs"]) {
      await page.goto(path);
      await expect(page.getByText(line, { exact: true }), path).toBeVisible();
    }
    await page.goto(`/checkout/${AI}`);
    const summary = page.getByRole("region", { name: "Order Summary" });
    await expect(summary.getByRole("definition").first()).toHaveText(formatDay(cohort.start));
    await expect(page.getByText(/^Orientation/)).toBeVisible();
    await expect(page.getByText("Instant access after payment")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeVisible();
  });

  test("on a day with no cohort open to join, the pages say enrolment is closed and offer no way to pay", async ({
    page,
  }) => {
    const last = [...program.cohort!.starts].sort().at(-1)!;
    // Noon in the business's zone, 15 days after the last cohort listed in content started.
    await page.clock.setFixedTime(new Date(`${addDays(last, 15)}T18:00:00Z`));
    expect(cohortOf(AI, new Date(`${addDays(last, 15)}T18:00:00Z`))).toBeNull();
    for (const path of [program.page, "/purchase-course", "/programs"]) {
      await page.goto(path);
      const closed = page.getByText(COHORT_COPY.closed).first();
      await expect(closed, path).toBeVisible();
      await expect(closed.getByRole("link", { name: new RegExp(`^${COHORT_COPY.ask}`) })).toHaveAttribute(
        "href",
        program.applyPage,
      );
      await expect(page.getByRole("link", { name: `Buy Now ${program.name}` })).toBeHidden();
    }
    await page.goto(`/checkout/${AI}`);
    await expect(page.getByRole("heading", { name: "Enrolment is closed" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toHaveCount(0);
    await expect(page.getByRole("link", { name: COHORT_COPY.ask })).toHaveAttribute("href", program.applyPage);
    // A self-paced program sells as ever.
    await page.goto("/checkout/GROWTH_MINDSET");
    await expect(page.getByText("Instant access after payment")).toBeVisible();
  });

  test("a purchase: the success page and the access e-mail give the cohort's first day, the e-mail with a calendar file", async ({
    page,
  }) => {
    test.setTimeout(60_000);
    const cohort = cohortOf(AI);
    await page.goto(`/checkout/${AI}`);
    if (!cohort) {
      // No cohort open to join today: nothing to pay for (the checkout function refuses it too).
      await expect(page.getByRole("button", { name: "Complete Purchase" })).toHaveCount(0);
      return;
    }
    const email = `cohort.${randomUUID().slice(0, 8)}@example.com`;
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Complete Purchase" }).click();
    await page.waitForURL(/\/_local\/stripe\/checkout\/cs_test_/);
    await page.getByLabel("Card number").fill("4242 4242 4242 4242");
    await page.getByLabel("Expiration (MM / YY)").fill("12 / 34");
    await page.getByLabel("CVC").fill("123");
    await page.getByLabel("Cardholder name").fill("Dana Buyer");
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL(/\/checkout\/success\?session_id=cs_test_/);
    const day = formatDay(cohort.start);
    await expect(page.locator("#facts")).toContainText(`Your cohort starts${day}`);

    const mail = await lastMailTo(page, email, /^You now have AI Advisor Accelerator/);
    expect(mail.text).toContain(`Cohort starts: ${day}`);
    const outbox = (await (await page.request.get("/_local/outbox.json")).json()) as {
      id: string;
      to: string;
      subject: string;
      attachments?: { filename: string; contentType: string }[];
    }[];
    const sent = outbox.find((m) => m.to === email && m.subject.startsWith("You now have"))!;
    if (cohort.started) {
      expect(sent.attachments ?? []).toEqual([]);
      return;
    }
    expect(sent.attachments?.map((a) => a.filename)).toEqual(["cohort-start.ics"]);
    const file = await page.request.get(`/_local/outbox/${sent.id}/attachments/0`);
    expect(file.headers()["content-type"]).toMatch(/^text\/calendar/);
    const ics = await file.text();
    expect(ics).toContain(`DTSTART;VALUE=DATE:${cohort.start.replaceAll("-", "")}\r\n`);
    expect(ics).toContain("SUMMARY:AI Advisor Accelerator: your cohort starts\r\n");
  });

  test("after it, the portal's course tile names the cohort recorded with the order", async ({ page }) => {
    const customer = await createCustomer({
      name: "cohort-tile",
      orders: [{ product: AI, status: "completed", cents: program.priceCents, daysAgo: 0 }],
    });
    const cohort = cohortOf(AI);
    await signIn(page, customer);
    await expect(page).toHaveURL(/\/portal$/);
    const tile = page.getByRole("article").filter({ hasText: program.name });
    if (cohort) {
      const when = cohort.started ? "Your cohort started" : "Your cohort starts";
      await expect(tile).toContainText(`${when} ${formatDay(cohort.start)}`);
    } else await expect(tile).not.toContainText("Your cohort");
  });
});
