/**
 * A course's page in the portal: the program, the customer's progress and the way on ("Start",
 * or "Continue: <next lesson>"), then every module with its lessons: done, open, a free preview,
 * or opening on a later day (cohort programs). Built with the outline (public, from content/) and
 * no progress; the progress and the access arrive from the stores the page's script fills.
 */
import { useMemo } from "react";
import { useAtom } from "~/lib/useAtom";
import { $auth } from "~/stores/session";
import { $orders, $progress, LOADING } from "~/features/portal/store";
import { LoadingNote, Panel, pillButtonClass, ProgressBar, Skeleton } from "~/components/ui/panel";
import { AUTH_LOADING } from "~/features/portal/ui";
import {
  courseProgress,
  formatDay,
  formatDuration,
  isOpen,
  lessonCount,
  type OutlineLesson,
  opensLabel,
  opensLater,
  paymentPending,
  type OutlineModule,
  type PackedModule,
  progressMap,
  type ProgressMap,
  unpackModules,
} from "./logic";
import { $access } from "./store";
import { BuyLinks, CheckIcon, LockIcon } from "./ui";

export interface CourseOutlineProps {
  /** `id`: the program's content id, of which its lessons' ids and addresses are made. */
  program: { id: string; name: string; checkoutKey: string; priceCents: number; page: string };
  /** The curriculum, packed by packModules (./logic.ts). */
  modules: PackedModule[];
  /** The business's time zone (content/site.yaml), in which unlock days begin. */
  timeZone: string;
}

export default function CourseOutline({ program, modules: packed, timeZone }: CourseOutlineProps) {
  const modules = useMemo(() => unpackModules(program.id, packed), [program.id, packed]);
  const auth = useAtom($auth, AUTH_LOADING);
  const progress = useAtom($progress, LOADING);
  const access = useAtom($access, LOADING);
  const lessons = modules.flatMap((m) => m.lessons);
  const done = progress.status === "ready" ? progressMap(progress.data) : null;
  const startDay = access.status === "ready" ? access.data.startDay : undefined;
  const owned = startDay !== undefined && startDay !== null;
  const opensOn = (lesson: OutlineLesson) => opensLater(lesson, startDay, timeZone);
  const summary = done ? courseProgress(lessons, done) : null;
  const firstOpen = lessons.find((l) => opensOn(l) === null);
  const cohortStart = owned && lessons.some((l) => l.unlockWeek !== null) ? startDay : null;

  return (
    <div className="space-y-10">
      <Panel as="section" aria-labelledby="progress-heading" className="p-6 sm:p-8">
        <h2 id="progress-heading" className="sr-only">
          Your progress
        </h2>
        {auth.status !== "signed-in" || !summary || access.status === "loading" ? (
          <div aria-busy="true">
            <Skeleton className="h-5 w-40" />
            <Skeleton className="mt-4 h-2 w-full rounded-full" />
            <Skeleton className="mt-6 h-11 w-56 rounded-full" />
            <LoadingNote>Loading your progress…</LoadingNote>
          </div>
        ) : access.status === "ready" && !owned ? (
          <NotOwned program={program} cohort={lessons.some((l) => l.unlockWeek !== null)} />
        ) : (
          <div>
            <p className="text-sm font-medium text-slate-300">
              <span className="text-lg font-semibold text-white">{lessonCount(summary.done, summary.total)}</span>{" "}
              completed
            </p>
            <ProgressBar percent={summary.percent} label={`${program.name}: ${summary.percent}% complete`} />
            {cohortStart && !isOpen(cohortStart, timeZone) && (
              <p className="mt-4 text-slate-300">
                Your cohort starts on <strong className="text-white">{formatDay(cohortStart)}</strong>. The orientation
                is open now; each module opens on its week.
              </p>
            )}
            <NextStep next={summary.next ?? null} started={summary.started} first={firstOpen ?? null} />
          </div>
        )}
        {progress.status === "error" && (
          <p className="mt-4 text-sm text-slate-300">
            We couldn&rsquo;t load your progress just now. Your lessons are below; refresh the page in a moment to see
            it.
          </p>
        )}
      </Panel>

      <ol className="space-y-8" aria-label="Modules">
        {modules.map((module) => (
          <li key={module.number}>
            <Module module={module} done={done} opensOn={opensOn} owned={owned} />
          </li>
        ))}
      </ol>
    </div>
  );
}

function NextStep({
  next,
  started,
  first,
}: {
  next: OutlineLesson | null;
  started: boolean;
  first: OutlineLesson | null;
}) {
  const button = `${pillButtonClass.primary} mt-6`;
  if (!next) {
    return (
      <div>
        <p className="mt-4 font-semibold text-green-300">You have completed every lesson. Well done.</p>
        {first && (
          <a href={first.href} className={button}>
            Review from the start
          </a>
        )}
      </div>
    );
  }
  if (!started) {
    return (
      <a href={(first ?? next).href} className={button}>
        Start
      </a>
    );
  }
  return (
    <a href={next.href} className={button}>
      Continue: {next.title}
    </a>
  );
}

function NotOwned({ program, cohort }: { program: CourseOutlineProps["program"]; cohort: boolean }) {
  const orders = useAtom($orders, LOADING);
  if (orders.status === "ready" && paymentPending(orders.data, program.checkoutKey)) {
    return (
      <div>
        <p className="text-lg font-semibold text-white">Your payment for {program.name} is being confirmed.</p>
        <p className="mt-2 text-slate-300">
          Your bank is still confirming it. The course opens here as soon as it clears, usually within a few business
          days; the lessons marked Free preview are open to you now.
        </p>
      </div>
    );
  }
  return (
    <div>
      <p className="text-lg font-semibold text-white">{program.name} is not on your account yet.</p>
      <p className="mt-2 text-slate-300">
        The lessons marked Free preview are open to you now.{" "}
        {cohort
          ? "The orientation opens the moment your purchase completes, and the rest week by week from the start of your cohort, which the checkout names before you pay."
          : "The rest of the course opens the moment your purchase completes."}
      </p>
      <BuyLinks program={program} />
    </div>
  );
}

function Module({
  module,
  done,
  opensOn,
  owned,
}: {
  module: OutlineModule;
  done: ProgressMap | null;
  /** The day a lesson opens, while it is ahead; null once it is open. */
  opensOn: (lesson: OutlineLesson) => string | null;
  owned: boolean;
}) {
  const finished = done ? module.lessons.filter((l) => done.get(l.id)?.completed).length : null;
  const headingId = `module-${module.number}`;
  return (
    <Panel as="section" muted aria-labelledby={headingId}>
      <header className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 border-b border-white/10 p-5 sm:px-6">
        <div className="min-w-0">
          <p className="text-xs font-semibold uppercase tracking-wider text-violet-300">{module.label}</p>
          <h2 id={headingId} className="mt-1 text-xl font-semibold text-white">
            {module.title}
          </h2>
        </div>
        <p className="text-sm text-slate-300">
          {finished === null ? `${module.lessons.length} lessons` : lessonCount(finished, module.lessons.length)}
        </p>
      </header>
      <ol className="divide-y divide-white/5">
        {module.lessons.map((lesson) => {
          const complete = !!done?.get(lesson.id)?.completed;
          // A lesson whose week is ahead is no link: there is nothing to open yet (the database
          // returns no text before that day). Its day is said in words, the lock is decoration.
          const day = opensOn(lesson);
          const row = "flex items-start gap-4 p-5 sm:px-6";
          const content = (
            <>
              <span
                aria-hidden="true"
                className={`mt-0.5 flex size-7 shrink-0 items-center justify-center rounded-full text-xs font-bold ${
                  complete ? "bg-green-500 text-slate-950" : "border border-white/20 text-slate-300"
                }`}
              >
                {complete ? <CheckIcon /> : day ? <LockIcon /> : lesson.position}
              </span>
              <span className="min-w-0 flex-1">
                <span className={`block font-medium ${day ? "text-slate-200" : "text-white"}`}>{lesson.title}</span>
                <span className="mt-1 block text-sm leading-6 text-slate-300">{lesson.summary}</span>
                <span className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs font-semibold text-slate-300">
                  <span>{formatDuration(lesson.duration)}</span>
                  {complete ? (
                    <span className="text-green-300">Completed</span>
                  ) : day ? (
                    <span className="text-amber-200">{opensLabel(day)}</span>
                  ) : lesson.freePreview && !owned ? (
                    <span className="text-sky-300">Free preview</span>
                  ) : null}
                </span>
              </span>
            </>
          );
          return (
            <li key={lesson.id}>
              {day ? (
                <div className={row}>{content}</div>
              ) : (
                <a href={lesson.href} className={`${row} hover:bg-white/5 focus-visible:bg-white/5`}>
                  {content}
                </a>
              )}
            </li>
          );
        })}
      </ol>
    </Panel>
  );
}
