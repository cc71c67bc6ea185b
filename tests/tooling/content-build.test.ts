/**
 * A broken content file must fail the build with a message naming the file and the field. Each
 * test runs the real `astro sync` on a copy of the project with one file broken: a bad value, a
 * reference to an entry that does not exist, a page section left out, a statistic without its
 * source. The last ones build copies: one in which one program has no testimonial, one with photos
 * and videos the shipped content lacks. The schemas alone are tests/unit/content-schema.test.ts.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { load } from "js-yaml";
import { copyProject, type ProjectCopy } from "../support/project-copy.ts";
import { contentDir } from "../unit/content-files";

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
