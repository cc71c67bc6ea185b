/**
 * A broken content file must fail the build with a message naming the file and the field.
 * The first block checks the schemas directly; the second runs the real `astro sync` on a copy
 * of the project with one file broken: a bad value, a reference to an entry that does not exist,
 * a page section left out, a statistic without its source. The last ones build copies: one in
 * which one program has no testimonial, one with photos and videos the shipped content lacks.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
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
  programSchema,
  type Ref,
  sharedCopySchema,
  siteSchema,
  statSchema,
  testimonialSchema,
} from "../../src/schemas/content";
import { copyProject, type ProjectCopy } from "../support/project-copy.ts";
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

  it("reject a default call to action that leads nowhere", () => {
    const site = { brand: "X", flagship: "x", description: "d".repeat(60) };
    const result = siteSchema(ref).safeParse({ ...site, defaultCta: { text: "Go", href: "get-started" } });
    expect(issues(result)).toContain("defaultCta.href: must be a site path starting with / or an https:// URL");
  });
});

const copies: ProjectCopy[] = [];
afterAll(() => copies.forEach((copy) => copy.remove()));

/**
 * Copies the project, adds the `files` (paths under content/) and lets each edit change one file
 * of content/, runs `astro <command>` in the copy.
 */
async function astroWith(
  command: "sync" | "build",
  edits: Record<string, (text: string) => string>,
  files: Record<string, Buffer> = {},
) {
  const copy = copyProject();
  copies.push(copy);
  for (const [file, bytes] of Object.entries(files)) {
    mkdirSync(join(copy.dir, "content", file, ".."), { recursive: true });
    writeFileSync(join(copy.dir, "content", file), bytes);
  }
  for (const [file, edit] of Object.entries(edits)) {
    const target = join(copy.dir, "content", file);
    const before = readFileSync(target, "utf8");
    const after = edit(before);
    expect(after).not.toBe(before);
    writeFileSync(target, after);
  }
  const { failed, output } = await copy.astro([command]);
  return { dir: copy.dir, failed, output: failed ? output : "" };
}

describe("astro build on broken content", () => {
  /** Copies the project, lets `breakIt` edit one file, runs `astro sync`, returns its output. */
  async function syncWith(file: string, breakIt: (text: string) => string) {
    const result = await astroWith("sync", { [file]: breakIt });
    return { ...result, target: join(result.dir, "content", file) };
  }

  /** A value's closing quote left out on the file's first `key: value` line, as a hurried edit does. */
  const unclosedQuote = (text: string) => text.replace(/^(\s*-?\s*[\w-]+: )([^"'\n|>][^\n]*)$/m, '$1"$2');

  it(
    "fails on any content file that does not parse, a single-file collection too, naming the file and the line",
    { timeout: 180_000 },
    async () => {
      // Every file Astro's file() loader used to skip with a logged error and exit 0, and one
      // file of a folder collection and of a page.
      const files = [
        "site.yaml",
        "endorsements.yaml",
        "stats.yaml",
        "why-choose.yaml",
        "audience-tiers.yaml",
        "phases.yaml",
        "lead-pages.yaml",
        "success-metrics.yaml",
        "offers.yaml",
        "charts.yaml",
        "programs/os-accelerator.yaml",
        "pages/programs.yaml",
      ];
      const results = [];
      // Two at a time: each is a whole `astro sync` of a copy of the project.
      for (let i = 0; i < files.length; i += 2) {
        results.push(...(await Promise.all(files.slice(i, i + 2).map((file) => syncWith(file, unclosedQuote)))));
      }
      for (const [i, result] of results.entries()) {
        expect(result.failed, files[i]).toBe(true);
        // js-yaml's "(line:column)" for the YAML files, Astro's "file:line:column" for a folder's.
        const name = files[i]!.replace(".", "\\.");
        expect(result.output, files[i]).toMatch(new RegExp(`${name}(:\\d+:\\d+|[^\\n]*\\(\\d+:\\d+\\))`));
      }
    },
  );

  it("fails on an entry written twice under one name (a copied block not renamed), naming the file and the line", async () => {
    const result = await syncWith(
      "stats.yaml",
      (t) => `${t.trimEnd()}\n${t.slice(t.indexOf("aum-growth:"), t.indexOf("hours-saved:"))}`,
    );
    expect(result.failed).toBe(true);
    expect(result.output).toMatch(/stats\.yaml cannot be read as YAML: duplicated mapping key[^\n]*\(\d+:\d+\)/);
  });

  it("fails on a statistic without its source, naming the file, the entry and the field", async () => {
    const result = await syncWith("success-metrics.yaml", (t) =>
      t.replace(/(completion:\n(?:.*\n)*?) {2}source: >-\n(?: {4}.*\n)+/, "$1"),
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain("completion");
    expect(result.output).toContain("source: every statistic needs its source");
  });

  it("fails on a price that is not whole cents, naming the file and the field", async () => {
    const result = await syncWith("programs/os-accelerator.yaml", (t) =>
      t.replace("priceCents: 299900", "priceCents: 2999.5"),
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain("priceCents: must be whole cents");
  });

  it("fails on a missing field in a list file, naming the file, the entry and the field", async () => {
    const result = await syncWith("endorsements.yaml", (t) => t.replace("  author: Thomas Greer\n", ""));
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain("thomas-greer");
    expect(result.output).toMatch(/author: /);
  });

  it("fails on a testimonial about a program that does not exist, naming the file and the field", async () => {
    const result = await syncWith("testimonials/david-okafor.yaml", (t) =>
      t.replace("programs: [os-accelerator]", "programs: [os-acelerator]"),
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain('programs.0: "os-acelerator" is not in content/programs/');
  });

  it("fails on a curriculum for a program that does not exist", async () => {
    const result = await syncWith("curricula/growth-mindset.yaml", (t) =>
      t.replace("program: growth-mindset", "program: mindset"),
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain('program: "mindset" is not in content/programs/');
  });

  it("fails on a flagship that is not a program", async () => {
    const result = await syncWith("site.yaml", (t) =>
      t.replace("flagship: ai-advisor-accelerator", "flagship: AI Advisor Accelerator"),
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain('flagship: "AI Advisor Accelerator" is not in content/programs/');
  });

  it("fails on a framework phase of a program that does not exist, naming the entry", async () => {
    const result = await syncWith("phases.yaml", (t) =>
      t.replace("  program: ai-advisor-accelerator\n  phase: Phase 3", "  program: ai-accelerator\n  phase: Phase 3"),
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain("ai-automate");
    expect(result.output).toContain('program: "ai-accelerator" is not in content/programs/');
  });

  it("fails on a sales page whose offer or chart does not exist", async () => {
    const result = await syncWith("pages/mindset.mdx", (t) =>
      t.replace("offer: growth-mindset", "offer: mindset").replace("chart: top-reasons-advisors-fail", "chart: top-5"),
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain('offer: "mindset" is not in content/offers.yaml');
    expect(result.output).toContain('chart: "top-5" is not in content/charts.yaml');
  });

  it("fails on a program page for a program that does not exist", async () => {
    const result = await syncWith("program-pages/os-accelerator.yaml", (t) =>
      t.replace("program: os-accelerator", "program: advisor-os"),
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain('program: "advisor-os" is not in content/programs/');
  });

  it("fails on a page section left out of an MDX page, naming the file and the section", async () => {
    const result = await syncWith("pages/mindset.mdx", (t) => t.replace(/\n {2}notFit:\n(?: {4}.*\n)+/, "\n"));
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain("sections.notFit");
  });

  it("fails on a page section left out of a YAML page", async () => {
    const result = await syncWith("pages/programs.yaml", (t) => t.replace(/\n {2}comparison:\n(?: {4}.*\n)+/, "\n"));
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain("sections.comparison");
  });

  it("fails on a misspelt section, which is usually a typo", async () => {
    const result = await syncWith("pages/advisor-os.mdx", (t) => t.replace("  whySystems:", "  whySystem:"));
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain("sections.whySystems");
    expect(result.output).toContain("whySystem");
  });

  it("fails without the home page's file, naming it", async () => {
    const copy = copyProject();
    copies.push(copy);
    rmSync(join(copy.dir, "content/pages/home.yaml"));
    const { failed, output } = await copy.astro(["sync"]);
    expect(failed).toBe(true);
    expect(output).toContain("content/pages/home.yaml is missing");
  });

  it("fails on a home page section without its heading, naming the file and the field", async () => {
    const result = await syncWith("pages/home.yaml", (t) =>
      t.replace("    heading: Why advisors choose {brand}\n", ""),
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain("sections.whyChoose.heading");
  });

  it("fails on a lesson in a module its program's curriculum does not have, naming the file and the field", async () => {
    const result = await syncWith("lessons/growth-mindset/put-money-beliefs-on-trial.mdx", (t) =>
      t.replace("module: 1\n", "module: 7\n"),
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain("module: content/curricula/growth-mindset.yaml has 6 modules; expected 1-6");
  });

  it("fails on an unlock week in a self-paced program, and on a download that is not there", async () => {
    const result = await syncWith("lessons/growth-mindset/put-money-beliefs-on-trial.mdx", (t) =>
      t
        .replace("duration: 25\n", "duration: 25\nunlockWeek: 2\n")
        .replace("money-belief-inventory.pdf", "money-beliefs.pdf"),
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain("unlockWeek: growth-mindset is self-paced");
    expect(result.output).toContain(
      "downloads.0.file: content/lessons/growth-mindset/downloads/money-beliefs.pdf does not exist",
    );
  });

  it("fails on a lesson's duration that is not a whole number of minutes, and on a malformed video id", async () => {
    const result = await syncWith("lessons/growth-mindset/find-your-production-ceiling-belief.mdx", (t) =>
      t.replace(/duration: \d+/, "duration: 20 minutes").replace("id: h3m9pz6c2d", "id: https://wistia.com/h3m9"),
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toMatch(/duration: .*number/i);
    expect(result.output).toContain("video.id: must be a Wistia media id");
  });

  it("fails on a field of the wrong type in a Markdown page", async () => {
    const result = await syncWith("legal/dmca.md", (t) => t.replace("updated: 2026-11-01", "updated: last tuesday"));
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toMatch(/updated: /);
  });
});

describe("lessons in the built site", () => {
  it("two lessons in one place fail the build, naming both files", { timeout: 120_000 }, async () => {
    const result = await astroWith("build", {
      "lessons/growth-mindset/put-money-beliefs-on-trial.mdx": (t) => t.replace("order: 2\n", "order: 1\n"),
    });
    expect(result.output).toContain("Two lessons are growth-mindset module 1 order 1");
    expect(result.output).toContain("content/lessons/growth-mindset/put-money-beliefs-on-trial.mdx");
    expect(result.output).toContain("content/lessons/growth-mindset/find-your-production-ceiling-belief.mdx");
  });
});

describe("testimonials in the built pages", () => {
  it("a program that no testimonial names shows none, not everyone else's", { timeout: 90_000 }, async () => {
    const result = await astroWith("build", {
      "testimonials/elena-vasquez.yaml": (t) => t.replace("programs: [growth-mindset]", "programs: [os-accelerator]"),
      "testimonials/grace-adeyemi.yaml": (t) => t.replace("programs: [growth-mindset]", "programs: [os-accelerator]"),
    });
    expect(result.output).toBe("");
    const html = (page: string) => readFileSync(join(result.dir, "dist", `${page}.html`), "utf8");
    for (const page of ["programs/growth-mindset", "mindset"]) {
      expect(html(page), page).not.toContain("Rated 5 out of 5");
      expect(html(page), page).not.toContain("Success Stories");
    }
    expect(html("programs/advisor-os-accelerator")).toContain("Elena Vasquez");
    expect(html("programs/ai-advisor-accelerator")).not.toContain("Elena Vasquez");
  });
});

describe("photos and videos in the built pages", () => {
  /** An abstract test picture, a gradient with a circle (no one's face), as a JPEG a marketer might save. */
  const picture = (width: number, height: number) =>
    sharp(
      Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
          `<defs><linearGradient id="g" x2="1" y2="1"><stop stop-color="#7c3aed"/><stop offset="1" stop-color="#0ea5e9"/></linearGradient></defs>` +
          `<rect width="100%" height="100%" fill="url(#g)"/><circle cx="50%" cy="40%" r="20%" fill="#fff" fill-opacity=".4"/></svg>`,
      ),
    )
      .jpeg()
      .toBuffer();

  it(
    "photos go through Astro's image pipeline as AVIF and WebP at their display sizes; a configured video gets its play button",
    { timeout: 180_000 },
    async () => {
      const result = await astroWith(
        "build",
        {
          "coaches/jordan-ellis.yaml": (t) => `${t}photo: ./photos/jordan-ellis.jpg\n`,
          "testimonials/grace-adeyemi.yaml": (t) =>
            `${t}photo: ./photos/grace-adeyemi.jpg\nvideo: { provider: wistia, id: g7k2m9p4qx }\n`,
          "site.yaml": (t) => t.replace(/(heroVideo:[\s\S]*?wistiaMediaId: )""/, '$1"h3m9pz6c2d"'),
        },
        {
          "coaches/photos/jordan-ellis.jpg": await picture(900, 1200),
          "testimonials/photos/grace-adeyemi.jpg": await picture(600, 600),
        },
      );
      expect(result.output).toBe("");
      const dist = join(result.dir, "dist");
      const html = (page: string) => readFileSync(join(dist, `${page}.html`), "utf8");
      /** The <picture> of a photo (by its file's name), with its sources' srcsets by type and its <img>. */
      const pictureOf = (page: string, photo: string) => {
        const match = [...html(page).matchAll(/<picture\b[^>]*>([\s\S]*?)<\/picture>/g)].find((m) =>
          m[1]!.includes(`/_astro/${photo}.`),
        );
        expect(match, `${page}: a <picture> of ${photo}`).toBeDefined();
        const sources = Object.fromEntries(
          [...match![1]!.matchAll(/<source\b([^>]*)>/g)].map(([, attrs]) => [
            /type="([^"]+)"/.exec(attrs!)![1],
            { srcset: /srcset="([^"]+)"/.exec(attrs!)![1]!, sizes: /sizes="([^"]+)"/.exec(attrs!)?.[1] },
          ]),
        );
        return { sources, img: /<img\b[^>]*>/.exec(match![1]!)![0] };
      };
      /** The width and height of each file of a srcset, read from the built files. */
      const files = (srcset: string) =>
        Promise.all(
          srcset.split(", ").map(async (entry) => {
            const [url, width] = entry.split(" ");
            const { width: w, height: h, format } = await sharp(join(dist, url!)).metadata();
            return { width, size: `${w}x${h}`, format };
          }),
        );

      // The coach's portrait on the home page: 112 x 140, cropped to 4:5, at 1x, 2x and 3x.
      const coach = pictureOf("index", "jordan-ellis");
      expect(coach.img).toContain('alt="Portrait of Jordan Ellis"');
      expect(Object.keys(coach.sources)).toEqual(["image/avif", "image/webp"]);
      expect(coach.sources["image/avif"]!.sizes).toBe("112px");
      expect(await files(coach.sources["image/avif"]!.srcset)).toEqual([
        { width: "112w", size: "112x140", format: "heif" },
        { width: "224w", size: "224x280", format: "heif" },
        { width: "336w", size: "336x420", format: "heif" },
      ]);
      expect((await files(coach.sources["image/webp"]!.srcset)).map((f) => f.format)).toEqual(["webp", "webp", "webp"]);
      expect(coach.img).toMatch(/\swidth="112"/);
      expect(coach.img).toMatch(/\sheight="140"/);
      expect(coach.img).toMatch(/\sloading="lazy"/);
      // The other coaches still have no photo: their initials, not a stand-in face.
      expect(html("index")).toContain("data-photo-placeholder");
      expect(html("programs/growth-mindset")).toContain("Portrait of Jordan Ellis");

      // The client's photo on the pages of the program the testimonial speaks about: a 48 px avatar.
      for (const page of ["programs/growth-mindset", "mindset"]) {
        const client = pictureOf(page, "grace-adeyemi");
        // Decorative: the client's name is beside it.
        expect(client.img).toMatch(/\salt(="")?\s/);
        expect(Object.keys(client.sources)).toEqual(["image/avif", "image/webp"]);
        expect((await files(client.sources["image/webp"]!.srcset)).map((f) => f.size)).toEqual([
          "48x48",
          "96x96",
          "144x144",
        ]);
        expect(client.img).toMatch(/\sloading="lazy"/);
        // Their video: a play button, and the page's policy lets Wistia's player frame in.
        const grace = load(readFileSync(join(contentDir, "testimonials/grace-adeyemi.yaml"), "utf8")) as {
          company: string;
        };
        expect(html(page)).toContain(`aria-label="Play video: Grace Adeyemi, ${grace.company}"`);
      }

      // The hero with a video: the poster and a play button instead of the still.
      expect(html("index")).toContain('aria-label="Play video: Watch: how independent advisors');
      expect(html("index")).not.toContain("The Advisor Accelerator framework: Attract");
      const headers = readFileSync(join(dist, "_headers"), "utf8");
      for (const route of ["/", "/programs/growth-mindset", "/mindset"]) {
        const rule = headers.split(/\n(?=\S)/).find((block) => block.split("\n")[0] === route);
        expect(rule, route).toMatch(/frame-src [^;]*https:\/\/fast\.wistia\.net/);
      }
    },
  );
});
