/**
 * The member area's data: whether the customer has the program (and the day their course counts
 * from), the lesson on this page, and what changes them (mark complete, a video's position, a
 * download's signed URL). Progress rows live in the portal store ($progress), which the course
 * pages ask for too.
 *
 * The course pages' script calls `startCourse()` as soon as the page is parsed: when supabase-js
 * reports the session, the lesson, the access and the progress are fetched at once, in parallel,
 * before React hydrates. The database decides what comes back (supabase/migrations/
 * *_member_area.sql): a lesson row only when the customer may read it now.
 */
import { atom } from "nanostores";
import type { LessonDownload, LessonProgressRow, LessonVideo } from "~/lib/database";
import { functionErrorMessage } from "~/lib/function-error";
import { supabase } from "~/lib/supabase";
import { $auth } from "~/stores/session";
import { currentUser, LOADING, mergeProgress, type Outcome, type Remote } from "~/features/portal/store";
import { isOpen, unlockDay } from "./logic";

/** What the page needs to fetch, from its static HTML. */
export interface CourseTarget {
  /** The program's checkout key, as orders and lessons name it. */
  productKey: string;
  /** The business's time zone, in which unlock days begin. */
  timeZone: string;
  /** The lesson on this page, if it is a lesson page. */
  lesson?: { id: string; unlockWeek: number | null };
}

/** The day (YYYY-MM-DD) the customer's course counts from; null when they do not have the program. */
export const $access = atom<Remote<{ startDay: string | null }>>(LOADING);

export interface LessonContent {
  body_html: string;
  video: LessonVideo | null;
  downloads: LessonDownload[];
}

/** The lesson on this page, as the customer may see it. */
export type LessonState =
  | { status: "loading" }
  | { status: "ready"; lesson: LessonContent }
  /** Signed in, without the program, and the lesson is no free preview. */
  | { status: "no-access" }
  /** A cohort lesson whose week has not come: the day it opens. */
  | { status: "locked"; opensOn: string }
  /** Could not be loaded (the error is logged, never shown raw). */
  | { status: "error" };

export const $lesson = atom<LessonState>(LOADING);

let started = false;
let loadedFor: string | null = null;

/** Follows the session store and fetches what `target` needs for the signed-in user. Once per page. */
export function startCourse(target: CourseTarget): void {
  if (typeof window === "undefined" || started) return;
  started = true;
  $auth.subscribe((auth) => {
    if (auth.status !== "signed-in" || auth.user.id === loadedFor) return;
    const userId = auth.user.id;
    if (loadedFor !== null) {
      $access.set(LOADING);
      $lesson.set(LOADING);
    }
    loadedFor = userId;
    // supabase-js reports the session from inside its auth callback; start the requests after it.
    queueMicrotask(() => void load(userId, target));
  });
}

async function load(userId: string, target: CourseTarget): Promise<void> {
  const access = loadAccess(userId, target.productKey);
  if (!target.lesson) return void (await access);
  const { id, unlockWeek } = target.lesson;
  try {
    const { data, error } = await supabase
      .from("course_lessons")
      .select("body_html, video, downloads")
      .eq("id", id)
      .maybeSingle();
    if (loadedFor !== userId) return;
    if (error) throw error;
    if (data) return $lesson.set({ status: "ready", lesson: data });
    // No row: the database refused it. Why decides what the page says.
    const startDay = await access;
    if (loadedFor !== userId) return;
    if (startDay === undefined) return $lesson.set({ status: "error" });
    if (startDay === null) return $lesson.set({ status: "no-access" });
    const opensOn = unlockDay(startDay, unlockWeek);
    if (opensOn && !isOpen(opensOn, target.timeZone)) return $lesson.set({ status: "locked", opensOn });
    // The customer may read it, yet it is not there: not published (yet).
    console.error(`Lesson ${id} is not in the database: run npm run course:publish.`);
    $lesson.set({ status: "error" });
  } catch (error) {
    if (loadedFor !== userId) return;
    console.error("Could not load the lesson:", error);
    $lesson.set({ status: "error" });
  }
}

/** Fetches the customer's start day; answers it (null: no access), or undefined when it failed. */
async function loadAccess(userId: string, productKey: string): Promise<string | null | undefined> {
  try {
    const { data, error } = await supabase.rpc("program_start_date", { p_product_key: productKey });
    if (loadedFor !== userId) return undefined;
    if (error) throw error;
    const startDay = (data as string | null) ?? null;
    $access.set({ status: "ready", data: { startDay } });
    return startDay;
  } catch (error) {
    if (loadedFor !== userId) return undefined;
    console.error("Could not check your access to the course:", error);
    $access.set({ status: "error" });
    return undefined;
  }
}

const SIGNED_OUT = "You are signed out. Please sign in again.";
const UNREACHABLE = "The server could not be reached. Please try again.";

/** Saves part of the customer's progress in a lesson (an upsert of their own row). */
async function saveProgress(
  lessonId: string,
  fields: { completed?: boolean; video_position?: number },
): Promise<Outcome> {
  const user = currentUser();
  if (!user) return { ok: false, message: SIGNED_OUT };
  try {
    const { data, error } = await supabase
      .from("lesson_progress")
      .upsert({ user_id: user.id, lesson_id: lessonId, ...fields }, { onConflict: "user_id,lesson_id" })
      .select()
      .single();
    if (error) return { ok: false, message: error.message };
    mergeProgress(data as LessonProgressRow);
    return { ok: true };
  } catch (error) {
    console.error("Could not save your progress:", error);
    return { ok: false, message: UNREACHABLE };
  }
}

/** Marks a lesson done (or not done again). */
export const setCompleted = (lessonId: string, completed: boolean) => saveProgress(lessonId, { completed });

/** Remembers where the customer is in a lesson's video, in whole seconds. */
export const saveVideoPosition = (lessonId: string, seconds: number) =>
  saveProgress(lessonId, { video_position: Math.max(0, Math.min(86_400, Math.floor(seconds))) });

/**
 * A short-lived link that downloads one of the lesson's files: the `course-download` function makes
 * it for a customer the database says may read the lesson, and it works for a minute
 * (functions/course-download/handler.ts); the browser cannot sign one itself.
 */
export async function downloadUrl(path: string): Promise<{ ok: true; url: string } | { ok: false; message: string }> {
  try {
    const { data, error } = await supabase.functions.invoke<{ url?: unknown }>("course-download", { body: { path } });
    if (!error && typeof data?.url === "string") return { ok: true, url: data.url };
    return { ok: false, message: (await functionErrorMessage(error)) ?? UNREACHABLE };
  } catch (error) {
    console.error("Could not prepare the download:", error);
    return { ok: false, message: UNREACHABLE };
  }
}

let marked = false;

/** Marks the moment a lesson page shows its body, once: `npm run bench` measures up to it. */
export function markLessonShown(): void {
  if (marked || typeof performance === "undefined") return;
  marked = true;
  performance.mark("lesson-content-shown");
}
