/**
 * The lessons of the module a lesson page belongs to, beside it: each a link, the current one
 * marked, the completed ones ticked once the progress arrives.
 */
import { useAtom } from "~/lib/useAtom";
import { $progress, LOADING } from "~/features/portal/store";
import { formatDuration, type OutlineLesson } from "./logic";
import { CheckIcon } from "./ui";

export default function ModuleLessons({ lessons, current }: { lessons: OutlineLesson[]; current: string }) {
  const progress = useAtom($progress, LOADING);
  const done = new Set(
    progress.status === "ready" ? progress.data.filter((r) => r.completed).map((r) => r.lesson_id) : [],
  );
  return (
    <ol className="mt-4 space-y-1">
      {lessons.map((lesson) => {
        const here = lesson.id === current;
        return (
          <li key={lesson.id}>
            <a
              href={lesson.href}
              aria-current={here ? "page" : undefined}
              className={`flex items-start gap-3 rounded-xl px-3 py-2.5 text-sm ${
                here ? "bg-white/10 text-white" : "text-slate-300 hover:bg-white/5 hover:text-white"
              }`}
            >
              <span
                aria-hidden="true"
                className={`mt-0.5 flex size-5 shrink-0 items-center justify-center rounded-full text-[0.65rem] font-bold ${
                  done.has(lesson.id) ? "bg-green-500 text-slate-950" : "border border-white/25"
                }`}
              >
                {done.has(lesson.id) ? <CheckIcon className="size-3" /> : lesson.position}
              </span>
              <span className="min-w-0 flex-1">
                {lesson.title}
                <span className="sr-only">{done.has(lesson.id) ? " (completed)" : ""}</span>
              </span>
              <span className="shrink-0 text-xs text-slate-400">{formatDuration(lesson.duration)}</span>
            </a>
          </li>
        );
      })}
    </ol>
  );
}
