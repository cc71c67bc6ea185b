/**
 * The member area on `npm start`'s stack, as customers use it: the demo customer's course in
 * progress, opened from My Courses; a lesson read and marked complete, still complete after a
 * reload; a video resumed where it was left (the stack's Wistia stand-in); a download through a
 * signed URL; a customer without the program offered its checkout and no body; a signed-out
 * visitor sent to /login and back; a cohort lesson before its week, with its day and no body; the
 * lessons whose week is ahead, in the outline and beside a lesson, marked with the day they open
 * and no links. Each page axe-clean at 1280 and 390 px. (A refund taking the course away: purchase.spec.ts.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { load } from "js-yaml";
import { addDays, cohortOn, dayIn, formatDay } from "@advisor-accelerator/shared/cohort.ts";
import { axeViolations, VIEWPORTS } from "./axe";
import { cohortOf } from "./cohorts";
import { createCustomer, signIn } from "./customers";
import { priceOf } from "./prices";

const CONTENT = join(import.meta.dirname, "../../content");
const TIME_ZONE = (load(readFileSync(join(CONTENT, "site.yaml"), "utf8")) as { site: { timeZone: string } }).site
  .timeZone;

/**
 * Words of the first paragraph of a lesson's MDX body: what only its readers may see. The longest
 * run without quotes or apostrophes, which the build turns typographic.
 */
function opening(lesson: string): string {
  const source = readFileSync(join(CONTENT, "lessons", `${lesson}.mdx`), "utf8");
  const body = source.split(/^---$/m)[2]!;
  const paragraph = body
    .trim()
    .split(/\n\s*\n/)[0]!
    .replace(/\s+/g, " ")
    .replace(/[*_]/g, "");
  return paragraph
    .split(/["'’“”]/)
    .map((run) => run.trim())
    .sort((a, b) => b.length - a.length)[0]!;
}

const lessonRegion = (page: Page) => page.getByRole("region", { name: "Lesson", exact: true });
const growthMindset = { product: "GROWTH_MINDSET", status: "completed" as const, cents: 30_000, daysAgo: 2 };

test.describe("the demo customer", () => {
  test.describe.configure({ mode: "serial" });

  test("finds their course in progress on My Courses, and opens it at the next lesson", async ({ page }) => {
    await signIn(page, { id: "", email: "demo@advisoraccelerator.com", password: "advisor-demo-2026" });
    await expect(page).toHaveURL(/\/portal$/);
    const tile = page.getByRole("article").filter({ hasText: "Growth Mindset Mastery" });
    await expect(tile).toContainText("3 of 18 lessons");
    await expect(tile.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "16");
    // "Continue course →" opens the lesson where the demo stopped (its video at 1:35), not the outline.
    await expect(tile).toContainText("Continue course →");
    await tile.getByRole("link", { name: "Growth Mindset Mastery" }).click();
    await expect(page).toHaveURL(/\/portal\/courses\/growth-mindset\/name-your-call-reluctance$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Name the kind of call reluctance you have");

    await page.goto("/portal/courses/growth-mindset");
    await expect(page.getByRole("heading", { level: 1, name: "Growth Mindset Mastery" })).toBeVisible();
    await expect(page.getByText("3 of 18 lessons", { exact: true })).toBeVisible();
    const module1 = page.getByRole("region", { name: "The identity of a top producer" });
    await expect(module1).toContainText("3 of 3 lessons");
    await expect(module1.getByText("Completed")).toHaveCount(3);
    await page.getByRole("link", { name: "Continue: Name the kind of call reluctance you have" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Name the kind of call reluctance you have");
    await expect(lessonRegion(page)).toContainText(opening("growth-mindset/name-your-call-reluctance"));
  });

  test("reads a lesson, marks it complete, and finds it complete after a reload", async ({ page }) => {
    await signIn(page, { id: "", email: "demo@advisoraccelerator.com", password: "advisor-demo-2026" });
    await expect(page).toHaveURL(/\/portal$/);
    await page.goto("/portal/courses/growth-mindset/make-the-calls-you-avoid");
    await expect(lessonRegion(page)).toContainText(opening("growth-mindset/make-the-calls-you-avoid"));
    // By keyboard, as a screen-reader user would.
    await page.getByRole("button", { name: "Mark as complete" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("status").filter({ hasText: "Lesson marked as complete." })).toBeVisible();
    await page.reload();
    await expect(page.getByRole("button", { name: "Mark as not complete" })).toBeVisible();
    await page.goto("/portal/courses/growth-mindset");
    await expect(page.getByText("4 of 18 lessons", { exact: true })).toBeVisible();

    // Put the demo back as the seed left it.
    await page.goto("/portal/courses/growth-mindset/make-the-calls-you-avoid");
    await page.getByRole("button", { name: "Mark as not complete" }).click();
    await expect(page.getByRole("button", { name: "Mark as complete" })).toBeVisible();
  });
});

test("a video resumes where the customer left it", async ({ page }) => {
  const customer = await createCustomer({ name: "viewer", orders: [growthMindset] });
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  await page.goto("/portal/courses/growth-mindset/find-your-production-ceiling-belief");
  const player = page.getByRole("group", { name: "Video player" });
  await player.getByRole("button", { name: "Play video" }).click();
  await expect(player.getByText(/^0:0[3-9] \//)).toBeVisible({ timeout: 10_000 });
  await player.getByRole("button", { name: "Pause video" }).click();
  const at = (await player.getByText(/^\d+:\d\d \//).textContent())!.split(" ")[0]!;

  await page.reload();
  await expect(page.getByText(`Resuming where you left off, at ${at}.`)).toBeVisible();
  await expect(page.getByRole("group", { name: "Video player" }).getByText(new RegExp(`^${at} /`))).toBeVisible();
});

test("a download comes through a short-lived signed URL, to the program's buyers only", async ({ page }) => {
  const customer = await createCustomer({ name: "downloader", orders: [growthMindset] });
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  await page.goto("/portal/courses/growth-mindset/put-money-beliefs-on-trial");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: /Money Belief Inventory/ }).click(),
  ]);
  expect(download.suggestedFilename()).toBe("money-belief-inventory.pdf");
  expect(download.url()).toMatch(/\/storage\/v1\/object\/sign\/course-downloads\/growth-mindset\/[^?]+\?token=/);
  const bytes = readFileSync((await download.path())!);
  expect(bytes.equals(readFileSync(join(CONTENT, "lessons/growth-mindset/downloads/money-belief-inventory.pdf")))).toBe(
    true,
  );
});

test("a customer without the program is offered its checkout, sees no lesson body, and may read the free preview", async ({
  page,
}) => {
  const customer = await createCustomer({ name: "browser" });
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  await page.goto("/portal/courses/growth-mindset/put-money-beliefs-on-trial");
  await expect(page.getByRole("heading", { name: "This lesson is part of Growth Mindset Mastery" })).toBeVisible();
  await expect(
    page.getByRole("link", { name: `Get Growth Mindset Mastery · ${priceOf("GROWTH_MINDSET")}` }),
  ).toHaveAttribute("href", "/checkout/GROWTH_MINDSET");
  await expect(page.getByText(opening("growth-mindset/put-money-beliefs-on-trial"))).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Downloads" })).toHaveCount(0);

  await page.goto("/portal/courses/growth-mindset");
  await expect(page.getByText("Growth Mindset Mastery is not on your account yet.")).toBeVisible();
  const preview = page.getByRole("link", { name: /Find the belief behind your production ceiling/ });
  await expect(preview).toContainText("Free preview");
  await preview.click();
  await expect(lessonRegion(page)).toContainText(opening("growth-mindset/find-your-production-ceiling-belief"));
});

test("a customer whose bank payment is still settling is told the course opens when it clears, not offered it again", async ({
  page,
}) => {
  const customer = await createCustomer({
    name: "settling",
    orders: [{ product: "OS_ACCELERATOR", status: "pending", cents: 299_900, daysAgo: 1 }],
  });
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  await page.goto("/portal/courses/os-accelerator/write-your-three-year-vision");
  await expect(page.getByRole("heading", { name: "Your payment is being confirmed" })).toBeVisible();
  await expect(page.getByRole("link", { name: /^Get Advisor OS Accelerator/ })).toHaveCount(0);
  await expect(page.getByText(opening("os-accelerator/write-your-three-year-vision"))).toHaveCount(0);
});

test("a signed-out visitor is sent to /login, and back to the lesson after signing in", async ({ page }) => {
  const customer = await createCustomer({ name: "returning", orders: [growthMindset] });
  const lesson = "/portal/courses/growth-mindset/state-your-fee-then-stop";
  await page.goto(lesson);
  await expect(page).toHaveURL(`/login?next=${encodeURIComponent(lesson)}`);
  await page.getByLabel("Email").fill(customer.email);
  await page.getByLabel("Password", { exact: true }).fill(customer.password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(lesson);
  await expect(lessonRegion(page)).toContainText(opening("growth-mindset/state-your-fee-then-stop"));
});

test("a cohort lesson before its week shows the day it opens, and no body", async ({ page }) => {
  const customer = await createCustomer({
    name: "cohort",
    orders: [{ product: "AI_ACCELERATOR", status: "completed", cents: 1_500_000, daysAgo: 0 }],
  });
  // The buyer joins the cohort the rule picks today (packages/shared/cohort.ts), as the checkout did.
  const program = load(readFileSync(join(CONTENT, "programs/ai-advisor-accelerator.yaml"), "utf8")) as {
    cohort: { starts: (string | Date)[] };
  };
  const day = dayIn(TIME_ZONE);
  const starts = program.cohort.starts.map((s) => (s instanceof Date ? s.toISOString().slice(0, 10) : s));
  const start = cohortOn(starts, day)?.start ?? day;
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);

  await page.goto("/portal/courses/ai-advisor-accelerator/audit-your-book-by-household");
  if (start > day) {
    await expect(page.getByRole("heading", { name: `This lesson opens on ${formatDay(start)}` })).toBeVisible();
    await expect(page.getByText(opening("ai-advisor-accelerator/audit-your-book-by-household"))).toHaveCount(0);
  } else {
    await expect(lessonRegion(page)).toBeVisible();
  }
  // Week 5 is always ahead of a buyer who paid today: their cohort started at most 14 days ago.
  await page.goto("/portal/courses/ai-advisor-accelerator/let-ai-prepare-every-meeting");
  const weekFive = formatDay(new Date(Date.parse(`${start}T00:00:00Z`) + 28 * 86_400_000).toISOString().slice(0, 10));
  await expect(page.getByRole("heading", { name: `This lesson opens on ${weekFive}` })).toBeVisible();
  await expect(page.getByText(opening("ai-advisor-accelerator/let-ai-prepare-every-meeting"))).toHaveCount(0);
  // The orientation opens with the purchase.
  await page.goto("/portal/courses/ai-advisor-accelerator/how-the-twelve-weeks-run");
  await expect(lessonRegion(page)).toContainText(opening("ai-advisor-accelerator/how-the-twelve-weeks-run"));
});

for (const viewport of VIEWPORTS) {
  test(`the course and lesson pages are axe-clean and fit at ${viewport.width} px`, async ({ page }) => {
    await page.setViewportSize(viewport);
    const customer = await createCustomer({ name: "reader", orders: [growthMindset] });
    await signIn(page, customer);
    await expect(page).toHaveURL(/\/portal$/);
    for (const path of [
      "/portal",
      "/portal/courses/growth-mindset",
      "/portal/courses/growth-mindset/put-money-beliefs-on-trial",
      "/portal/courses/growth-mindset/find-your-production-ceiling-belief",
    ]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      if (path.split("/").length > 4) await expect(lessonRegion(page)).toBeVisible();
      else if (path !== "/portal") await expect(page.getByText(/of 18 lessons/).first()).toBeVisible();
      expect(await axeViolations(page), path).toEqual([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${path}: no sideways scrolling`).toBeLessThanOrEqual(0);
    }
  });
}

/** A lesson of the AI program as content/lessons/ has it. */
interface CohortLesson {
  slug: string;
  title: string;
  module: number;
  order: number;
  duration: number;
  unlockWeek?: number;
}
const AI_LESSONS = readdirSync(join(CONTENT, "lessons/ai-advisor-accelerator"))
  .filter((file) => file.endsWith(".mdx"))
  .map((file) => {
    const front = readFileSync(join(CONTENT, "lessons/ai-advisor-accelerator", file), "utf8").split(/^---$/m)[1]!;
    return { slug: file.slice(0, -".mdx".length), ...(load(front) as Omit<CohortLesson, "slug">) };
  })
  .sort((a, b) => a.module - b.module || a.order - b.order);
const AI_MODULES = (
  load(readFileSync(join(CONTENT, "curricula/ai-advisor-accelerator.yaml"), "utf8")) as {
    items: { label: string; title: string }[];
  }
).items;
const PORTAL_COPY = load(readFileSync(join(CONTENT, "pages/portal.yaml"), "utf8")) as {
  lesson: { outline: string; neighbours: { label: string } };
};

for (const viewport of VIEWPORTS) {
  test(`at ${viewport.width} px, a cohort buyer sees the lessons whose week is ahead marked with the day they open, not as links`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    // The browser's clock held at the moment the test works the days out: page and test count from one day.
    const at = new Date();
    await page.clock.setFixedTime(at);
    const customer = await createCustomer({
      name: "locked",
      orders: [{ product: "AI_ACCELERATOR", status: "completed", cents: 1_500_000, daysAgo: 0 }],
    });
    // The cohort the checkout picked for a buyer today (packages/shared/cohort.ts), else the day of purchase.
    const day = dayIn(TIME_ZONE, at);
    const start = cohortOf("AI_ACCELERATOR", at)?.start ?? day;
    const opens = (lesson: CohortLesson) => (lesson.unlockWeek ? addDays(start, (lesson.unlockWeek - 1) * 7) : null);
    const ahead = (lesson: CohortLesson) => (opens(lesson) ?? "") > day;
    const moduleOf = (number: number) => AI_LESSONS.filter((l) => l.module === number);
    const sidebarOf = (number: number) =>
      page.getByRole("complementary", { name: `${AI_MODULES[number - 1]!.label}: ${AI_MODULES[number - 1]!.title}` });
    await signIn(page, customer);
    await expect(page).toHaveURL(/\/portal$/);

    // A lesson of week 5, always ahead of a buyer who paid today: it and its module's others are
    // listed beside it with the day they open, and none is a link; the keyboard passes them by.
    const weekFive = moduleOf(3);
    const current = weekFive.find((l) => l.slug === "let-ai-prepare-every-meeting")!;
    await page.goto(`/portal/courses/ai-advisor-accelerator/${current.slug}`);
    const sidebar = sidebarOf(3);
    for (const lesson of weekFive) {
      expect(ahead(lesson), lesson.slug).toBe(true);
      const item = sidebar.getByRole("listitem").filter({ hasText: lesson.title });
      // What a screen reader meets: the title and the day, no link, no image (the lock is decoration).
      await expect(item).toMatchAriaSnapshot(
        `- listitem: ${lesson.title} Opens ${formatDay(opens(lesson)!)} ${lesson.duration} min`,
      );
    }
    await expect(sidebar.getByRole("listitem").filter({ hasText: current.title })).toHaveAttribute(
      "aria-current",
      "page",
    );
    await expect(sidebar.getByRole("link")).toHaveText([PORTAL_COPY.lesson.outline]);
    await page.getByRole("navigation", { name: PORTAL_COPY.lesson.neighbours.label }).getByRole("link").last().focus();
    await page.keyboard.press("Tab");
    await expect(sidebar.getByRole("link", { name: PORTAL_COPY.lesson.outline })).toBeFocused();
    expect(await axeViolations(page), "week 5's lesson page").toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);

    // The orientation, open with the purchase: a link, the current one; the first week's lessons
    // beside it are links once the cohort has started, and before that say the day it starts.
    const firstModule = moduleOf(1);
    const orientation = firstModule.find((l) => !l.unlockWeek)!;
    await page.goto(`/portal/courses/ai-advisor-accelerator/${orientation.slug}`);
    const first = sidebarOf(1);
    await expect(lessonRegion(page)).toBeVisible();
    await expect(first.getByRole("link", { name: orientation.title })).toHaveAttribute("aria-current", "page");
    for (const lesson of firstModule.filter((l) => l !== orientation)) {
      const item = first.getByRole("listitem").filter({ hasText: lesson.title });
      if (ahead(lesson)) {
        await expect(item).toContainText(`Opens ${formatDay(start)}`);
        await expect(item.getByRole("link")).toHaveCount(0);
      } else {
        await expect(item.getByRole("link", { name: lesson.title })).toHaveAttribute("href", /\/portal\/courses\//);
        await expect(item).not.toContainText("Opens");
      }
    }
    const after = firstModule.slice(firstModule.indexOf(orientation) + 1).find((l) => !ahead(l));
    await first.getByRole("link", { name: orientation.title }).focus();
    await page.keyboard.press("Tab");
    await expect(first.getByRole("link", { name: after?.title ?? PORTAL_COPY.lesson.outline })).toBeFocused();

    // The course outline says the same of them.
    await page.goto("/portal/courses/ai-advisor-accelerator");
    const module3 = page.getByRole("region", { name: AI_MODULES[2]!.title });
    for (const lesson of weekFive) {
      const item = module3.getByRole("listitem").filter({ hasText: lesson.title });
      await expect(item).toContainText(`Opens ${formatDay(opens(lesson)!)}`);
      await expect(item.getByRole("link")).toHaveCount(0);
    }
    await expect(page.getByRole("link", { name: new RegExp(`^${orientation.title}`) })).toBeVisible();
    expect(await axeViolations(page), "the course outline").toEqual([]);
  });
}
