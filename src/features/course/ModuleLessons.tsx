/**
 * The lessons of the module a lesson page belongs to, beside it: each a link, the current one
 * marked, the completed ones ticked once the progress arrives. A cohort lesson whose week has not
 * come, once the customer's access says so, is no link but a line with a lock and the day it opens,
 * as the course outline shows it (the same rule: `opensLater`).
 */
import { useAtom } from "~/lib/useAtom";
import { $progress, LOADING } from "~/features/portal/store";
import { formatDuration, opensLabel, opensLater, type OutlineLesson } from "./logic";
import { $access } from "./store";
import { CheckIcon, LockIcon } from "./ui";

export interface ModuleLessonsProps {
  lessons: OutlineLesson[];
  /** The id of the lesson on this page. */
  current: string;
  /** The business's time zone (content/site.yaml), in which unlock days begin. */
  timeZone: string;
}

export default function ModuleLessons({ lessons, current, timeZone }: ModuleLessonsProps) {
  const progress = useAtom($progress, LOADING);
  const access = useAtom($access, LOADING);
  const startDay = access.status === "ready" ? access.data.startDay : null;
  const done = new Set(
    progress.status === "ready" ? progress.data.filter((r) => r.completed).map((r) => r.lesson_id) : [],
  );
  return (
    <ol className="mt-4 space-y-1">
      {lessons.map((lesson) => {
        const here = lesson.id === current;
        const complete = done.has(lesson.id);
        const day = opensLater(lesson, startDay, timeZone);
        const row = "flex items-start gap-3 rounded-xl px-3 py-2.5 text-sm";
        const marker = "mt-0.5 flex size-5 shrink-0 items-center justify-center rounded-full text-[0.65rem] font-bold";
        const duration = <span className="shrink-0 text-xs text-slate-400">{formatDuration(lesson.duration)}</span>;
        if (day) {
          // Nothing to open yet: no link, so the keyboard passes it by. The day is read; the lock is not.
          return (
            <li
              key={lesson.id}
              aria-current={here ? "page" : undefined}
              className={`${row} ${here ? "bg-white/10 text-white" : "text-slate-300"}`}
            >
              <span aria-hidden="true" className={`${marker} border border-white/15 text-slate-400`}>
                <LockIcon className="size-3" />
              </span>
              <span className="min-w-0 flex-1">
                {lesson.title}{" "}
                <span className="mt-0.5 block text-xs font-semibold text-amber-200">{opensLabel(day)}</span>
              </span>
              {duration}
            </li>
          );
        }
        return (
          <li key={lesson.id}>
            <a
              href={lesson.href}
              aria-current={here ? "page" : undefined}
              className={`${row} ${here ? "bg-white/10 text-white" : "text-slate-300 hover:bg-white/5 hover:text-white"}`}
            >
              <span
                aria-hidden="true"
                className={`${marker} ${complete ? "bg-green-500 text-slate-950" : "border border-white/25"}`}
              >
                {complete ? <CheckIcon className="size-3" /> : lesson.position}
              </span>
              <span className="min-w-0 flex-1">
                {lesson.title}
                <span className="sr-only">{complete ? " (completed)" : ""}</span>
              </span>
              {duration}
            </a>
          </li>
        );
      })}
    </ol>
  );
}
