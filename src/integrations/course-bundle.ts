// Moves the course bundle (src/pages/course-bundle.json.ts: every lesson's body, video and
// downloads) out of the built site into the folder beside it (`dist` -> `dist-course/`), with a
// copy of each download, before any other integration reads the output. What is uploaded to the
// CDN never holds a lesson; `npm run course:publish` reads the folder.
import { copyFile, mkdir, readFile, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AstroIntegration } from "astro";
import { BUNDLE_FILE, bundleDirOf, downloadSource } from "../features/course/bundle.ts";

/** The bundle's route and its file in the build's output. */
export const BUNDLE_ROUTE = "/course-bundle.json";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/**
 * Each lesson's downloads (their paths in the bundle, `<program>/<file>`) in a parsed bundle, read
 * as the shape src/pages/course-bundle.json.ts writes (CourseBundle in src/features/course/bundle.ts);
 * a file of another shape stops the build rather than publish a course without its downloads.
 */
export function lessonDownloads(bundle: unknown): string[][] {
  const programs = isRecord(bundle) ? bundle.programs : undefined;
  if (!Array.isArray(programs)) throw new Error(`${BUNDLE_ROUTE} has no programs`);
  return programs.flatMap((program: unknown) => {
    const lessons = isRecord(program) ? program.lessons : undefined;
    if (!Array.isArray(lessons)) throw new Error(`${BUNDLE_ROUTE}: a program has no lessons`);
    return lessons.map((lesson: unknown) => {
      const downloads = isRecord(lesson) ? lesson.downloads : undefined;
      if (!Array.isArray(downloads)) throw new Error(`${BUNDLE_ROUTE}: a lesson has no downloads list`);
      return downloads.map((download: unknown) => {
        const path = isRecord(download) ? download.path : undefined;
        if (typeof path !== "string") throw new Error(`${BUNDLE_ROUTE}: a download has no path`);
        return path;
      });
    });
  });
}

export default function courseBundle(): AstroIntegration {
  let root = "";
  return {
    name: "course-bundle",
    hooks: {
      "astro:config:done": ({ config }) => {
        root = fileURLToPath(config.root);
      },
      "astro:build:done": async ({ dir, logger }) => {
        const outDir = fileURLToPath(dir);
        const built = join(outDir, BUNDLE_ROUTE.slice(1));
        const target = bundleDirOf(outDir);
        await rm(target, { recursive: true, force: true });
        await mkdir(target, { recursive: true });
        await rename(built, join(target, BUNDLE_FILE));
        const lessons = lessonDownloads(JSON.parse(await readFile(join(target, BUNDLE_FILE), "utf8")));
        let files = 0;
        for (const path of lessons.flat()) {
          const copy = join(target, "downloads", path);
          await mkdir(dirname(copy), { recursive: true });
          await copyFile(join(root, downloadSource(path)), copy);
          files += 1;
        }
        logger.info(`${lessons.length} lessons and ${files} downloads moved out of the site to ${target}`);
      },
    },
  };
}
