/**
 * The course bundle's shape: what the build writes (src/pages/course-bundle.json.ts, moved out of
 * the site by src/integrations/course-bundle.ts) and `npm run course:publish`
 * (scripts/course.ts, src/features/course/publish.server.ts) reads. Rows are named as the database's columns
 * (supabase/migrations/*_member_area.sql), so the publisher passes them through.
 */
import type { LessonDownload, LessonRow } from "../../lib/database.ts";

/** The private bucket of the lessons' downloads (supabase/migrations/*_member_area.sql). */
export const DOWNLOADS_BUCKET = "course-downloads";

/**
 * What a lesson may offer to download, by extension, with the type the private bucket stores it
 * as (its allowed types, supabase/migrations/*_member_area.sql): documents and spreadsheets.
 */
export const DOWNLOAD_TYPES = {
  pdf: "application/pdf",
  csv: "text/csv",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
} as const;

/** Bumped when the shape changes, so an old bundle is refused rather than half-read. */
export const COURSE_BUNDLE_VERSION = 1;

/** The folder beside a build's output that holds its course bundle: `dist` -> `dist-course`. */
export const bundleDirOf = (outDir: string) => `${outDir.replace(/[/\\]+$/, "")}-course`;

/** The bundle's file in that folder. */
export const BUNDLE_FILE = "course.json";

/** A lesson's file as the database keeps it (course_lessons.downloads): title, object name, type. */
export type BundleDownload = LessonDownload;

/** A lesson as the database keeps it, but for what the database adds (product key, hash, dates). */
export type BundleLesson = Pick<
  LessonRow,
  | "id"
  | "module"
  | "position"
  | "title"
  | "duration_minutes"
  | "summary"
  | "body_html"
  | "video"
  | "downloads"
  | "free_preview"
  | "unlock_week"
>;

export interface BundleProgram {
  program: string;
  product_key: string;
  name: string;
  cohort_starts: string[];
  time_zone: string;
  lessons: BundleLesson[];
}

export interface CourseBundle {
  version: number;
  programs: BundleProgram[];
}

/** A lesson's download as the bundle records it. */
export function bundleDownload(program: string, download: { title: string; file: string }): BundleDownload {
  const extension = download.file.slice(download.file.lastIndexOf(".") + 1) as keyof typeof DOWNLOAD_TYPES;
  return { title: download.title, path: `${program}/${download.file}`, type: DOWNLOAD_TYPES[extension] };
}

/** Where a download's file is in the project: content/lessons/<program>/downloads/<file>. */
export const downloadSource = (path: string) => {
  const slash = path.indexOf("/");
  return `content/lessons/${path.slice(0, slash)}/downloads/${path.slice(slash + 1)}`;
};
