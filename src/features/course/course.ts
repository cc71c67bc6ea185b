/**
 * The courses as the build reads them (content/lessons/, content/curricula/, content/programs/):
 * each program's modules (its curriculum items, in order) with their lessons. What this module
 * answers is the public outline: titles, durations, summaries, which lessons are previews and
 * when they open. Lesson bodies, video ids and downloads are read only by the course bundle
 * (src/pages/course-bundle.json.ts), which the build moves out of the site.
 */
import { getCollection } from "astro:content";
import { EMBED_WISTIA_PLAYER_URL } from "astro:env/server";
import { getCurriculum, getPrograms, getSite, type ProgramEntry } from "~/lib/content";
import { courseHref, lessonHref, type OutlineLesson, type OutlineModule } from "./logic";

export type LessonEntry = Awaited<ReturnType<typeof getLessonEntries>>[number];

/** Every lesson entry, checked for what one entry's schema cannot see: two lessons in one place. */
export async function getLessonEntries() {
  const entries = await getCollection("lessons");
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const place = `${entry.data.program.id} module ${entry.data.module} order ${entry.data.order}`;
    const other = seen.get(place);
    if (other) {
      throw new Error(
        `Two lessons are ${place}: ${other} and ${entry.filePath}. Give each lesson of a module its own \`order\`.`,
      );
    }
    seen.set(place, entry.filePath ?? entry.id);
  }
  return entries.sort((a, b) => a.data.module - b.data.module || a.data.order - b.data.order);
}

export interface Course {
  program: Pick<
    ProgramEntry,
    "id" | "name" | "checkoutKey" | "image" | "imageAlt" | "page" | "priceCents" | "length" | "description"
  >;
  /** The course's page in the portal. */
  href: string;
  /** Cohort start days (YYYY-MM-DD), for a cohort program; empty for a self-paced one. */
  cohortStarts: string[];
  /** Whether lessons open week by week (a cohort program). */
  cohort: boolean;
  modules: OutlineModule[];
  lessons: OutlineLesson[];
}

/** The course of every program, in the programs' order. Every program has one. */
export async function getCourses(): Promise<Course[]> {
  const [programs, entries] = await Promise.all([getPrograms(), getLessonEntries()]);
  return Promise.all(programs.map((program) => courseOf(program, entries)));
}

export async function getCourse(programId: string): Promise<Course> {
  const course = (await getCourses()).find((c) => c.program.id === programId);
  if (!course) throw new Error(`content/programs has no program "${programId}"`);
  return course;
}

async function courseOf(program: ProgramEntry, entries: LessonEntry[]): Promise<Course> {
  const curriculum = await getCurriculum(program);
  const mine = entries.filter((e) => e.data.program.id === program.id);
  const modules: OutlineModule[] = curriculum.map((item, index) => {
    const number = index + 1;
    const lessons = mine
      .filter((e) => e.data.module === number)
      .map((e, position): OutlineLesson => {
        const slug = e.id.slice(program.id.length + 1);
        return {
          id: e.id,
          slug,
          href: lessonHref(program.id, slug),
          title: e.data.title,
          summary: e.data.summary,
          duration: e.data.duration,
          module: number,
          position: position + 1,
          freePreview: e.data.freePreview,
          unlockWeek: e.data.unlockWeek ?? null,
          hasVideo: !!e.data.video,
          downloads: e.data.downloads.length,
        };
      });
    if (lessons.length === 0) {
      throw new Error(
        `content/curricula/${program.id}.yaml has module ${number} ("${item.title}") but content/lessons/${program.id}/ has no lesson with \`module: ${number}\`.`,
      );
    }
    return { number, label: item.label, title: item.title, description: item.description, lessons };
  });
  return {
    program: {
      id: program.id,
      name: program.name,
      checkoutKey: program.checkoutKey,
      image: program.image,
      imageAlt: program.imageAlt,
      page: program.page,
      priceCents: program.priceCents,
      length: program.length,
      description: program.description,
    },
    href: courseHref(program.id),
    cohort: !!program.cohort,
    cohortStarts: program.cohort?.starts ?? [],
    modules,
    lessons: modules.flatMap((m) => m.lessons),
  };
}

/** The business's time zone (content/site.yaml), in which cohort days and unlock days begin. */
export async function getTimeZone(): Promise<string> {
  return (await getSite()).timeZone;
}

/** Wistia's player script (its Aurora player), which lesson videos play in. */
export const WISTIA_PLAYER_SCRIPT = "https://fast.wistia.com/player.js";

/** The player script lesson pages load: Wistia's, or what EMBED_WISTIA_PLAYER_URL names (`npm start`'s stand-in). */
export const playerScript = () => EMBED_WISTIA_PLAYER_URL ?? WISTIA_PLAYER_SCRIPT;
