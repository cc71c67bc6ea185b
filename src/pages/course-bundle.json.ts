/**
 * The course bundle: every lesson with its rendered body, video and downloads, for
 * `npm run course:publish` to put in the database. It is built like any page, then moved out of
 * the site by src/integrations/course-bundle.ts before anything else reads the output, so it
 * never reaches the CDN (tests/tooling/course-bundle.test.ts checks the built site). Under
 * `astro dev` it is served on the dev server, from which `npm run dev` publishes to its stack.
 */
import type { APIRoute } from "astro";
import mdxRenderer from "@astrojs/mdx/server.js";
import { experimental_AstroContainer as AstroContainer } from "astro/container";
import { render } from "astro:content";
import { getCourses, getLessonEntries, getTimeZone } from "~/features/course/course";
import { type BundleLesson, type CourseBundle, bundleDownload, COURSE_BUNDLE_VERSION } from "~/features/course/bundle";

export const GET: APIRoute = async () => {
  const container = await AstroContainer.create();
  container.addServerRenderer({ name: "astro:jsx", renderer: mdxRenderer });
  const [courses, entries, timeZone] = await Promise.all([getCourses(), getLessonEntries(), getTimeZone()]);
  const bodies = new Map<string, string>();
  for (const entry of entries) {
    const { Content } = await render(entry);
    bodies.set(entry.id, (await container.renderToString(Content)).trim());
  }
  const bundle: CourseBundle = {
    version: COURSE_BUNDLE_VERSION,
    programs: courses.map((course) => ({
      program: course.program.id,
      product_key: course.program.checkoutKey,
      name: course.program.name,
      cohort_starts: course.cohortStarts,
      time_zone: timeZone,
      lessons: course.lessons.map((lesson): BundleLesson => {
        const data = entries.find((e) => e.id === lesson.id)!.data;
        return {
          id: lesson.id,
          module: lesson.module,
          position: lesson.position,
          title: lesson.title,
          duration_minutes: lesson.duration,
          summary: lesson.summary,
          body_html: bodies.get(lesson.id)!,
          video: data.video ?? null,
          downloads: data.downloads.map((d) => bundleDownload(course.program.id, d)),
          free_preview: lesson.freePreview,
          unlock_week: lesson.unlockWeek,
        };
      }),
    })),
  };
  return new Response(JSON.stringify(bundle), { headers: { "content-type": "application/json" } });
};
