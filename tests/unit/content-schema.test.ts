/**
 * A broken content file must fail the build with a message naming the file and the field. These
 * check the schemas directly, in milliseconds; tests/tooling/content-build.test.ts runs the real
 * `astro sync` and `astro build` on broken copies of the project.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "astro/zod";
import { load } from "js-yaml";
import {
  advisorOsPageSchema,
  chartSchema,
  coachSchema,
  curriculumSchema,
  DESIGNATION,
  endorsementSchema,
  homePageSchema,
  type Image,
  offerSchema,
  programSchema,
  type Ref,
  sharedCopySchema,
  siteSchema,
  statSchema,
  testimonialSchema,
} from "../../src/schemas/content";
import { contentDir, loadPrograms } from "./content-files";

function issues(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  expect(result.success).toBe(false);
  return result.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

/** References as plain ids; whether the entry exists is checked by `astro sync`, below. */
const ref: Ref = (collection) => z.string().transform((id) => ({ collection, id }));
/** Image paths as written; `astro sync` and the build resolve the files, below. */
const image = (() => z.string()) as unknown as Image;

describe("content schemas", () => {
  const valid = loadPrograms()[0]!;

  it("accept every program in content/", () => {
    expect(loadPrograms()).toHaveLength(3);
  });

  it("reject a price that is not whole cents", () => {
    expect(issues(programSchema.safeParse({ ...valid, priceCents: 2999.5 }))).toEqual([
      "priceCents: must be whole cents (an integer), e.g. 299900 for $2,999",
    ]);
  });

  it("reject a missing field, naming it", () => {
    const { name: _, ...withoutName } = valid;
    expect(issues(programSchema.safeParse(withoutName))[0]).toMatch(/^name: /);
  });

  it("reject a field of the wrong type, naming it", () => {
    expect(issues(programSchema.safeParse({ ...valid, priceCents: "300.00" }))[0]).toMatch(/^priceCents: .*number/i);
  });

  it("reject unknown keys, which are usually typos", () => {
    expect(issues(programSchema.safeParse({ ...valid, pirce: 1 }))[0]).toMatch(/pirce/);
  });

  const testimonial = {
    name: "A",
    title: "B",
    company: "C",
    aum: "$1M AUM",
    quote: "A quote that is long enough to pass.",
    initials: "AB",
    gradientColors: ["#7c3aed", "#2563eb"],
    programs: ["growth-mindset"],
  };

  it("refuse a designation, licence or registered firm on a sample person, naming the field; a real one may carry theirs", () => {
    const sampled = { ...testimonial, sample: true };
    expect(issues(testimonialSchema(ref, image).safeParse({ ...sampled, title: "CFP®, Managing Partner" }))).toEqual([
      'title: a sample person carries no designation, licence or registered firm ("CFP"): say in plain words what the sample stands for',
    ]);
    expect(issues(testimonialSchema(ref, image).safeParse({ ...sampled, company: "Whitfield RIA" }))[0]).toMatch(
      /^company: .*"RIA"/,
    );
    for (const title of ["CFA, Senior Wealth Advisor", "ChFC", "CLU", "CPA and partner", "Series 65 representative"]) {
      expect(testimonialSchema(ref, image).safeParse({ ...sampled, title }).success, title).toBe(false);
    }
    // The client's own, confirmed designation is theirs to show.
    expect(testimonialSchema(ref, image).safeParse({ ...testimonial, title: "CFP®, Managing Partner" }).success).toBe(
      true,
    );
    const coach = {
      name: "Jordan Ellis",
      role: "Mindset coach",
      bio: "Eight years as a producing advisor before moving into performance coaching for financial professionals.",
      credentials: ["Eight years as a producing financial advisor"],
      programs: ["growth-mindset"],
      order: 1,
      sample: true,
    };
    expect(coachSchema(ref, image).safeParse(coach).success).toBe(true);
    expect(
      issues(
        coachSchema(ref, image).safeParse({ ...coach, credentials: ["Twenty years in practice", "CFA charterholder"] }),
      ),
    ).toEqual([
      'credentials.1: a sample person carries no designation, licence or registered firm ("CFA"): say in plain words what the sample stands for',
    ]);
  });

  it("find no designation on any sample person in content/: coaches, testimonials, endorsers", () => {
    const folder = (dir: string) =>
      readdirSync(join(contentDir, dir)).map((file) => [
        `${dir}/${file}`,
        load(readFileSync(join(contentDir, dir, file), "utf8")),
      ]);
    const endorsements = Object.entries(load(readFileSync(join(contentDir, "endorsements.yaml"), "utf8")) as object);
    const people = [
      ...folder("coaches").map(([file, data]) => [file, coachSchema(ref, image).safeParse(data)] as const),
      ...folder("testimonials").map(([file, data]) => [file, testimonialSchema(ref, image).safeParse(data)] as const),
      ...endorsements.map(([id, data]) => [`endorsements.yaml ${id}`, endorsementSchema.safeParse(data)] as const),
    ];
    expect(people.length).toBeGreaterThan(0);
    for (const [file, result] of people) expect(result.error?.issues ?? [], String(file)).toEqual([]);
    for (const [, result] of people)
      if (result.data?.sample) expect(JSON.stringify(result.data)).not.toMatch(DESIGNATION);
  });

  it("read a testimonial's programs as references", () => {
    const parsed = testimonialSchema(ref, image).parse(testimonial);
    expect(parsed.programs).toEqual([{ collection: "programs", id: "growth-mindset" }]);
  });

  it("reject a testimonial gradient that is not two hex colours", () => {
    const result = testimonialSchema(ref, image).safeParse({ ...testimonial, gradientColors: ["#7c3aed", "purple"] });
    expect(issues(result)[0]).toMatch(/^gradientColors\.1: must be a hex colour/);
  });

  it("reject a testimonial that names no program, since it would appear on no page", () => {
    const result = testimonialSchema(ref, image).safeParse({ ...testimonial, programs: [] });
    expect(issues(result)).toEqual(["programs: name at least one program the testimonial speaks about"]);
  });

  const stat = { value: "300%", label: "Average AUM growth", order: 1 };
  const source = "Advisor Accelerator survey of 2023-2025 program graduates; individual results vary.";

  it("reject a statistic without its source, and one whose source says nothing", () => {
    expect(statSchema.parse({ ...stat, source }).source).toBe(source);
    expect(issues(statSchema.safeParse(stat))).toEqual([
      "source: every statistic needs its source: who measured it, how and when (shown as a footnote)",
    ]);
    expect(issues(statSchema.safeParse({ ...stat, source: "Survey." }))).toEqual([
      "source: too short for a source: say who measured it, how and when",
    ]);
  });

  it("reject a chart without its source", () => {
    const { success } = chartSchema.safeParse({ title: "Reasons", bars: [{ label: "One", percent: 35 }] });
    expect(success).toBe(false);
  });

  it("reject a payoff figure of the OS page without its source", () => {
    const payoff = {
      heading: "What it gives back",
      items: [
        {
          label: "30-60 days",
          title: "20-30% less admin time",
          description: "Documented workflows take the first bite.",
        },
      ],
    };
    const result = advisorOsPageSchema(ref).safeParse({ sections: { payoff } });
    expect(issues(result)).toContain(
      "sections.payoff.items.0.source: every statistic needs its source: who measured it, how and when (shown as a footnote)",
    );
  });

  const coach = {
    name: "A Coach",
    role: "Operations coach",
    bio: "Ran operations at two advisory firms and now coaches the implementation calls of the OS program.",
    credentials: ["Fifteen years in advisory-firm operations"],
    programs: ["os-accelerator"],
    order: 1,
  };

  it("read a coach, with or without a photo, and their programs as references", () => {
    const parsed = coachSchema(ref, image).parse(coach);
    expect(parsed.programs).toEqual([{ collection: "programs", id: "os-accelerator" }]);
    expect(parsed.photo).toBeUndefined();
    expect(coachSchema(ref, image).parse({ ...coach, photo: "./photos/a-coach.jpg" }).photo).toBe(
      "./photos/a-coach.jpg",
    );
  });

  it("reject a coach who coaches no program, since they would appear on no program's page", () => {
    expect(issues(coachSchema(ref, image).safeParse({ ...coach, programs: [] }))).toEqual([
      "programs: name at least one program the coach coaches",
    ]);
  });

  it("read a testimonial's video as a Wistia media id, and reject anything else", () => {
    const video = { provider: "wistia", id: "h3m9pz6c2d" };
    expect(testimonialSchema(ref, image).parse({ ...testimonial, video }).video).toEqual({ ...video, sample: false });
    const result = testimonialSchema(ref, image).safeParse({
      ...testimonial,
      video: { ...video, id: "https://wistia.com/x" },
    });
    expect(issues(result)).toEqual(["video.id: must be a Wistia media id: 10 lowercase letters and digits"]);
  });

  it("reject a curriculum item without its label", () => {
    const item = { title: "Foundations", description: "A description that is long enough." };
    const result = curriculumSchema(ref).safeParse({ program: "growth-mindset", items: [item] });
    expect(issues(result)[0]).toMatch(/^items\.0\.label: /);
  });

  const read = (file: string) => load(readFileSync(join(contentDir, file), "utf8"));
  const sharedCopy = () => read("shared-copy.yaml") as z.input<typeof sharedCopySchema>;
  /** The home page's file, its sections as they come, to leave one out. */
  const homePage = () => read("pages/home.yaml") as { sections: Record<string, Record<string, unknown> | undefined> };

  it("accept the shared copy and the home page as they ship", () => {
    expect(sharedCopySchema.safeParse(sharedCopy()).success).toBe(true);
    expect(homePageSchema.safeParse(homePage()).success).toBe(true);
  });

  it("reject a value in braces the page does not fill in, and a text that lost one it needs", () => {
    const copy = sharedCopy();
    copy.offer.saving = "Save {percnt}%";
    copy.footer.notice = "© {brand}. Training for financial professionals.";
    expect(issues(sharedCopySchema.safeParse(copy))).toEqual([
      "offer.saving: {percnt} is not a value this text can name; it may name {brand}, {percent}",
      "offer.saving: must name {percent}, where the page puts it",
      "footer.notice: must name {year}, where the page puts it",
    ]);
  });

  it("require every section of the home page, naming the one left out", () => {
    const home = homePage();
    delete home.sections.whyChoose!.heading;
    delete home.sections.coaches;
    expect(issues(homePageSchema.safeParse(home))).toEqual([
      expect.stringMatching(/^sections\.whyChoose\.heading: /),
      expect.stringMatching(/^sections\.coaches: /),
    ]);
  });

  describe("a coached offer's payment options (content/offers.yaml `payment`)", () => {
    const offers = load(readFileSync(join(contentDir, "offers.yaml"), "utf8")) as Record<
      string,
      Record<string, unknown>
    >;
    const ai = offers["ai-advisor-accelerator"]!;
    const payment = ai.payment as { plans: Record<string, unknown>[] };
    const withPlan = (plan: Record<string, unknown>) => ({ ...ai, payment: { ...payment, plans: [plan] } });

    it("accept every offer in content/, each with a way to pay", () => {
      for (const [id, offer] of Object.entries(offers)) {
        const parsed = offerSchema(ref).safeParse(offer);
        expect(parsed.success, `${id}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
        expect(parsed.data!.payment, id).toBeDefined();
      }
    });

    it("reject a plan whose instalments do not come to the price plus its fee, naming both sums", () => {
      expect(
        issues(
          offerSchema(ref).safeParse(withPlan({ ...payment.plans[0], instalmentsCents: [600000, 600000, 600000] })),
        ),
      ).toEqual([
        "payment.plans.0.instalmentsCents: add up to $18,000, not the price $35,000 plus the plan's fee $1,000 ($36,000): change an amount or the fee",
      ]);
      expect(
        issues(offerSchema(ref).safeParse(withPlan({ name: "Two payments", instalmentsCents: [1750000, 1750050] }))),
      ).toEqual([
        "payment.plans.0.instalmentsCents: add up to $35,000.50, not the price $35,000: change an amount, or state the difference as feeCents",
      ]);
      // The difference stated as the plan's fee: accepted.
      const fee = offerSchema(ref).safeParse(
        withPlan({ name: "Two payments", instalmentsCents: [1750000, 1750050], feeCents: 50 }),
      );
      expect(fee.success).toBe(true);
    });

    it("reject a plan of one payment or more than twelve, and an instalment of nothing", () => {
      expect(issues(offerSchema(ref).safeParse(withPlan({ name: "One", instalmentsCents: [3600000] })))[0]).toMatch(
        /^payment\.plans\.0\.instalmentsCents: /,
      );
      const thirteen = Array.from({ length: 13 }, () => 300000);
      expect(issues(offerSchema(ref).safeParse(withPlan({ name: "13", instalmentsCents: thirteen })))[0]).toMatch(
        /^payment\.plans\.0\.instalmentsCents: /,
      );
      expect(issues(offerSchema(ref).safeParse(withPlan({ name: "Zero", instalmentsCents: [3500000, 0] })))).toContain(
        "payment.plans.0.instalmentsCents.1: must be more than 0 cents",
      );
    });

    it("reject an offer with no way to pay, and a membership on an offer without a monthly price", () => {
      expect(issues(offerSchema(ref).safeParse({ ...ai, payment: { ...payment, inFull: false, plans: [] } }))).toEqual([
        "payment: offers no way to pay: set inFull: true or add a plan",
      ]);
      const { monthlyPriceCents: _, ...oneTime } = ai;
      expect(issues(offerSchema(ref).safeParse(oneTime))).toEqual([
        "payment.membership: needs the offer's monthlyPriceCents, what the membership costs a month",
      ]);
    });
  });

  it("reject a default call to action that leads nowhere", () => {
    const site = { brand: "X", flagship: "x", description: "d".repeat(60) };
    const result = siteSchema(ref).safeParse({ ...site, defaultCta: { text: "Go", href: "get-started" } });
    expect(issues(result)).toContain("defaultCta.href: must be a site path starting with / or an https:// URL");
  });
});
