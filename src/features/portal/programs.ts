/** The catalogue as the portal's islands take it: a few facts per program, and its course (small props). */
import { getCourses } from "~/features/course/course";
import type { PortalProgram } from "./logic";

export async function portalPrograms(): Promise<PortalProgram[]> {
  return (await getCourses()).map(({ program, href, lessons }) => ({
    key: program.checkoutKey,
    name: program.name,
    page: program.page,
    image: program.image,
    imageAlt: program.imageAlt,
    description: program.description,
    course: href,
    // A cohort lesson's week travels with it, so My Courses opens no lesson before its day.
    lessons: lessons.map(({ id, unlockWeek }) => (unlockWeek === null ? { id } : { id, unlockWeek })),
  }));
}
