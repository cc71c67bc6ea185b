/**
 * `npm run course:publish` (scripts/course.ts): puts a build's course bundle (the folder beside its
 * output, src/features/course/bundle.ts) into a Supabase project with the service role: the
 * downloads into the private bucket `course-downloads`, then each program's lessons in one
 * `publish_course` call (supabase/migrations/*_member_area.sql), then the files no lesson lists
 * any more are removed. Idempotent: a file whose bytes the bucket already holds is not sent
 * again, a lesson whose content hash is unchanged is not written, so a second run changes
 * nothing and it is safe on every deploy. Server-side tooling only: it holds the service role.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { SupabaseClient } from "@supabase/supabase-js";
import {
  BUNDLE_FILE,
  type BundleLesson,
  type CourseBundle,
  COURSE_BUNDLE_VERSION,
  DOWNLOADS_BUCKET,
} from "./bundle.ts";

export interface PublishReport {
  /** Per program: lessons added, updated, hidden and left as they were. */
  programs: { program: string; added: number; updated: number; removed: number; unchanged: number }[];
  /** Download files sent, and left as they were. */
  uploaded: string[];
  unchangedFiles: number;
  /** Files removed from the bucket because no lesson lists them. */
  deletedFiles: string[];
}

/** A publish that cannot go on: the message says what to do. */
export class PublishError extends Error {}

export async function readBundle(bundleDir: string): Promise<CourseBundle> {
  let text: string;
  try {
    text = await readFile(join(bundleDir, BUNDLE_FILE), "utf8");
  } catch {
    throw new PublishError(
      `No course bundle at ${join(bundleDir, BUNDLE_FILE)}: build the site first (npm run build writes it beside dist/, npm start beside dist-local/).`,
    );
  }
  const bundle = JSON.parse(text) as CourseBundle;
  if (bundle.version !== COURSE_BUNDLE_VERSION) {
    throw new PublishError(
      `${join(bundleDir, BUNDLE_FILE)} is a bundle of version ${bundle.version}, this publisher reads ${COURSE_BUNDLE_VERSION}: build again.`,
    );
  }
  return bundle;
}

/** What decides whether a lesson's row must be written again: every column the bundle gives. */
export function contentHash(productKey: string, lesson: BundleLesson): string {
  return createHash("sha256")
    .update(JSON.stringify([productKey, lesson]))
    .digest("hex");
}

/** Storage's entity tag of an object uploaded in one part: the MD5 of its bytes, quoted. */
const etagOf = (bytes: Uint8Array) => `"${createHash("md5").update(bytes).digest("hex")}"`;

interface StoredFile {
  etag: string | undefined;
}

/** The files under each program's folder in the bucket, by object name. */
async function storedFiles(admin: SupabaseClient, programs: string[]): Promise<Map<string, StoredFile>> {
  const files = new Map<string, StoredFile>();
  for (const program of programs) {
    for (let offset = 0; ; offset += 1000) {
      const { data, error } = await admin.storage
        .from(DOWNLOADS_BUCKET)
        .list(program, { limit: 1000, offset, sortBy: { column: "name", order: "asc" } });
      if (error) throw new PublishError(`Listing ${DOWNLOADS_BUCKET}/${program} failed: ${error.message}`);
      for (const entry of data) {
        // A folder (no id) holds nothing this publisher wrote.
        if (entry.id) files.set(`${program}/${entry.name}`, { etag: entry.metadata?.eTag as string | undefined });
      }
      if (data.length < 1000) break;
    }
  }
  return files;
}

export async function publishCourse(
  admin: SupabaseClient,
  bundleDir: string,
  log: (line: string) => void = () => undefined,
): Promise<PublishReport> {
  const bundle = await readBundle(bundleDir);
  const report: PublishReport = { programs: [], uploaded: [], unchangedFiles: 0, deletedFiles: [] };
  const stored = await storedFiles(
    admin,
    bundle.programs.map((p) => p.program),
  );

  // 1. Files first, so that no published lesson lists a file the bucket lacks.
  const wanted = new Set<string>();
  for (const program of bundle.programs) {
    for (const lesson of program.lessons) {
      for (const download of lesson.downloads) {
        if (wanted.has(download.path)) continue;
        wanted.add(download.path);
        const bytes = await readFile(join(bundleDir, "downloads", download.path));
        if (stored.get(download.path)?.etag === etagOf(bytes)) {
          report.unchangedFiles += 1;
          continue;
        }
        const { error } = await admin.storage
          .from(DOWNLOADS_BUCKET)
          .upload(download.path, bytes, { upsert: true, contentType: download.type, cacheControl: "3600" });
        if (error) throw new PublishError(`Uploading ${download.path} failed: ${error.message}`);
        report.uploaded.push(download.path);
        log(`uploaded ${DOWNLOADS_BUCKET}/${download.path}`);
      }
    }
  }

  // 2. Each program's course in one transaction.
  for (const program of bundle.programs) {
    const { lessons, ...settings } = program;
    const rows = lessons.map((lesson) => ({ ...lesson, content_hash: contentHash(program.product_key, lesson) }));
    const { data, error } = await admin.rpc("publish_course", { p_program: settings, p_lessons: rows });
    if (error) throw new PublishError(`Publishing ${program.program} failed: ${error.message}`);
    const counts = data as Omit<PublishReport["programs"][number], "program">;
    report.programs.push({ program: program.program, ...counts });
    log(
      `${program.program}: ${counts.added} added, ${counts.updated} updated, ${counts.removed} hidden, ${counts.unchanged} unchanged`,
    );
  }

  // 3. Files no lesson lists any more.
  const orphans = [...stored.keys()].filter((path) => !wanted.has(path));
  if (orphans.length > 0) {
    const { error } = await admin.storage.from(DOWNLOADS_BUCKET).remove(orphans);
    if (error) throw new PublishError(`Removing ${orphans.join(", ")} failed: ${error.message}`);
    report.deletedFiles.push(...orphans);
    for (const path of orphans) log(`removed ${DOWNLOADS_BUCKET}/${path}`);
  }
  return report;
}

/** One line for the operator: what a run changed. */
export function summary(report: PublishReport): string {
  const lessons = report.programs.reduce((sum, p) => sum + p.added + p.updated + p.removed, 0);
  const files = report.uploaded.length + report.deletedFiles.length;
  if (lessons === 0 && files === 0) return "The course is already published: nothing changed.";
  return `Published: ${lessons} lesson change(s), ${files} file change(s).`;
}
