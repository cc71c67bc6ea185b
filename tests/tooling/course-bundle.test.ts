/**
 * The lessons never reach the public CDN: a production build of a copy of the project holds no
 * sentence of any lesson's body, no video id and no download in any file it writes (pages,
 * scripts, styles, the sitemap, the host's files), while the course bundle beside it
 * (`dist-course/`, src/integrations/course-bundle.ts) holds every lesson for
 * `npm run course:publish`. The outline (titles, durations, summaries) is public, as the
 * curriculum is.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLE_FILE, type CourseBundle } from "../../src/features/course/bundle.ts";
import { astroTimeout, copyProject } from "../support/project-copy.ts";

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
  );

/** The text of a body, without tags and with entities decoded as far as the sentences need. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

/** The longest sentence of a body: something only that lesson says. */
function sentenceOf(html: string): string {
  const sentences = text(html)
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => /^[A-Za-z][A-Za-z ,;:'-]+[.!?]$/.test(s));
  return sentences.sort((a, b) => b.length - a.length)[0] ?? "";
}

const copy = copyProject();
let dist: string;
let bundle: CourseBundle;
let output: string[];

beforeAll(async () => {
  const built = await copy.astro(["build", "--outDir", "dist"]);
  expect(built.failed, built.output).toBe(false);
  dist = join(copy.dir, "dist");
  bundle = JSON.parse(readFileSync(join(copy.dir, "dist-course", BUNDLE_FILE), "utf8")) as CourseBundle;
  output = files(dist).map((file) => readFileSync(file).toString("latin1"));
}, astroTimeout(1));
afterAll(() => copy.remove());

describe("the built site and the course bundle", () => {
  it("the bundle holds every lesson of content/lessons/ with its body, and every download beside it", () => {
    const lessons = bundle.programs.flatMap((p) => p.lessons);
    const sources = readdirSync(join(copy.dir, "content", "lessons"), { recursive: true }).filter((f) =>
      String(f).endsWith(".mdx"),
    );
    expect(lessons).toHaveLength(sources.length);
    for (const lesson of lessons) expect(text(lesson.body_html).length, lesson.id).toBeGreaterThan(600);
    for (const download of lessons.flatMap((l) => l.downloads)) {
      expect(existsSync(join(copy.dir, "dist-course", "downloads", download.path)), download.path).toBe(true);
    }
  });

  it("no file of the site holds a sentence of any lesson's body", () => {
    const leaked: string[] = [];
    for (const lesson of bundle.programs.flatMap((p) => p.lessons)) {
      const sentence = sentenceOf(lesson.body_html);
      expect(sentence.split(" ").length, lesson.id).toBeGreaterThanOrEqual(8);
      // The build may escape an apostrophe or quote; a run of words on either side of one still shows.
      const words = sentence
        .split(/['"]/)
        .sort((a, b) => b.length - a.length)[0]!
        .trim();
      if (output.some((file) => file.includes(words))) leaked.push(`${lesson.id}: "${words}"`);
    }
    expect(leaked).toEqual([]);
  });

  it("no file of the site names a lesson's video or download, and the bundle is not among them", () => {
    const lessons = bundle.programs.flatMap((p) => p.lessons);
    const secrets = [
      ...lessons.flatMap((l) => (l.video ? [l.video.id] : [])),
      ...lessons.flatMap((l) => l.downloads.map((d) => d.path.split("/")[1]!)),
    ];
    expect(secrets.length).toBeGreaterThan(5);
    for (const secret of secrets)
      expect(
        output.filter((file) => file.includes(secret)),
        secret,
      ).toEqual([]);
    expect(existsSync(join(dist, "course-bundle.json"))).toBe(false);
    expect(readFileSync(join(dist, "sitemap.xml"), "utf8")).not.toMatch(/course-bundle|portal/);
  });

  it("the outline is public: a lesson's page carries its title and summary, and no body", () => {
    const lesson = bundle.programs.find((p) => p.program === "growth-mindset")!.lessons[0]!;
    const page = readFileSync(join(dist, "portal", "courses", `${lesson.id}.html`), "utf8");
    expect(page).toContain(lesson.title);
    expect(page).not.toContain(sentenceOf(lesson.body_html).slice(0, 40));
  });
});
