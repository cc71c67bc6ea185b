// Moves the course bundle (src/pages/course-bundle.json.ts: every lesson's body, video and
// downloads) out of the built site into the folder beside it (`dist` -> `dist-course/`), with a
// copy of each download, before any other integration reads the output. What is uploaded to the
// CDN never holds a lesson; `npm run course:publish` reads the folder.
import { copyFile, mkdir, readFile, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUNDLE_FILE, bundleDirOf, downloadSource } from "../features/course/bundle.ts";

/** The bundle's route and its file in the build's output. */
export const BUNDLE_ROUTE = "/course-bundle.json";

/** @returns {import("astro").AstroIntegration} */
export default function courseBundle() {
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
        const bundle = JSON.parse(await readFile(join(target, BUNDLE_FILE), "utf8"));
        let lessons = 0;
        let files = 0;
        for (const program of bundle.programs) {
          for (const lesson of program.lessons) {
            lessons += 1;
            for (const download of lesson.downloads) {
              const copy = join(target, "downloads", download.path);
              await mkdir(dirname(copy), { recursive: true });
              await copyFile(join(root, downloadSource(download.path)), copy);
              files += 1;
            }
          }
        }
        logger.info(`${lessons} lessons and ${files} downloads moved out of the site to ${target}`);
      },
    },
  };
}
