/**
 * The body of a lesson page: the video (when the lesson has one), the lesson's text, its
 * downloads and "Mark as complete", once the database returns the lesson; otherwise why not:
 * the program is not on the account (with its checkout link), the lesson's cohort week has not
 * come (with the day it opens), or it could not be loaded. Built in its loading state; the lesson
 * comes from the course store, which the page's script starts before this island hydrates.
 */
import { useEffect, useState } from "react";
import { useAtom } from "~/lib/useAtom";
import { $orders, $progress, LOADING } from "~/features/portal/store";
import { LoadingNote, Panel, pillButtonClass, Skeleton } from "~/components/ui/panel";
import { formatDay, type OutlineLesson, paymentPending } from "./logic";
import { $lesson, downloadUrl, type LessonContent, type LessonState, markLessonShown, setCompleted } from "./store";
import { BuyLinks, CheckIcon, LockIcon } from "./ui";
import LessonVideo from "./LessonVideo";

export interface LessonPlayerProps {
  lesson: Pick<OutlineLesson, "id" | "title" | "hasVideo" | "unlockWeek">;
  program: { name: string; checkoutKey: string; priceCents: number; page: string; courseHref: string };
  /** The next lesson, offered once this one is done. */
  next: Pick<OutlineLesson, "href" | "title"> | null;
  /** The video host's player script (Wistia's, or the local stack's stand-in). */
  playerScript: string;
}

export default function LessonPlayer({ lesson, program, next, playerScript }: LessonPlayerProps) {
  const state = useAtom<LessonState>($lesson, LOADING);

  useEffect(() => {
    if (state.status === "ready") markLessonShown();
  }, [state.status]);

  switch (state.status) {
    case "loading":
      return <LessonSkeleton hasVideo={lesson.hasVideo} />;
    case "ready":
      return <Lesson lesson={lesson} content={state.lesson} next={next} playerScript={playerScript} />;
    case "no-access":
      return <NotOwned program={program} />;
    case "locked":
      return (
        <Notice icon={<LockIcon className="size-5" />} heading={`This lesson opens on ${formatDay(state.opensOn)}`}>
          <p>
            {program.name} runs as a cohort: each module opens on its week, counted from the start of your cohort
            {lesson.unlockWeek ? ` (this one in week ${lesson.unlockWeek})` : ""}. We will be glad to see you then.
          </p>
          <a href={program.courseHref} className={secondaryButton}>
            Back to the course outline
          </a>
        </Notice>
      );
    case "error":
      return (
        <Notice heading="We couldn’t load this lesson just now">
          <p>Please check your connection and try again in a moment. Your progress is saved.</p>
          <button type="button" className={secondaryButton} onClick={() => window.location.reload()}>
            Try again
          </button>
        </Notice>
      );
  }
}

const secondaryButton = `${pillButtonClass.secondary} mt-6`;

function LessonSkeleton({ hasVideo }: { hasVideo: boolean }) {
  return (
    <div aria-busy="true" className="space-y-6">
      {hasVideo && <Skeleton className="aspect-video w-full rounded-2xl" />}
      <div className="space-y-3">
        {["w-full", "w-11/12", "w-full", "w-4/5", "w-full", "w-2/3"].map((width, i) => (
          <Skeleton key={i} className={`h-4 ${width}`} />
        ))}
      </div>
      <LoadingNote>Loading the lesson…</LoadingNote>
    </div>
  );
}

function Notice({ icon, heading, children }: { icon?: React.ReactNode; heading: string; children: React.ReactNode }) {
  return (
    <Panel as="section" aria-labelledby="lesson-notice" className="p-6 text-slate-300 sm:p-8">
      <h2 id="lesson-notice" className="flex items-center gap-3 text-xl font-semibold text-white">
        {icon}
        {heading}
      </h2>
      <div className="mt-3 leading-7">{children}</div>
    </Panel>
  );
}

function NotOwned({ program }: { program: LessonPlayerProps["program"] }) {
  const orders = useAtom($orders, LOADING);
  if (orders.status === "ready" && paymentPending(orders.data, program.checkoutKey)) {
    return (
      <Notice heading="Your payment is being confirmed">
        <p>
          Your bank is still confirming your payment for {program.name}. This lesson and the whole course open here as
          soon as it clears, usually within a few business days.
        </p>
        <a href="/portal" className={secondaryButton}>
          Back to My Courses
        </a>
      </Notice>
    );
  }
  return (
    <Notice icon={<LockIcon className="size-5" />} heading={`This lesson is part of ${program.name}`}>
      <p>
        {program.name} is not on your account yet. When you buy it, this lesson and the whole course open here at once,
        with your progress saved as you go.
      </p>
      <BuyLinks program={program} />
    </Notice>
  );
}

function Lesson({
  lesson,
  content,
  next,
  playerScript,
}: {
  lesson: LessonPlayerProps["lesson"];
  content: LessonContent;
  next: LessonPlayerProps["next"];
  playerScript: string;
}) {
  return (
    <div className="space-y-10">
      {content.video && <LessonVideo lessonId={lesson.id} video={content.video} playerScript={playerScript} />}
      {/* The lesson's HTML, as the site's build rendered its MDX and `course:publish` stored it. */}
      <section aria-label="Lesson" className="lesson-body" dangerouslySetInnerHTML={{ __html: content.body_html }} />
      {content.downloads.length > 0 && <Downloads downloads={content.downloads} />}
      <Completion lessonId={lesson.id} next={next} />
    </div>
  );
}

function Downloads({ downloads }: { downloads: LessonContent["downloads"] }) {
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState("");

  async function download(path: string) {
    setBusy(path);
    setMessage("");
    const link = await downloadUrl(path);
    setBusy(null);
    if (!link.ok) return setMessage(`The download could not start: ${link.message}`);
    window.location.assign(link.url);
  }

  return (
    <Panel as="section" aria-labelledby="downloads-heading" className="p-6">
      <h2 id="downloads-heading" className="text-lg font-semibold text-white">
        Downloads
      </h2>
      <ul className="mt-4 space-y-3">
        {downloads.map((file) => (
          <li key={file.path}>
            <button
              type="button"
              className="flex w-full items-center justify-between gap-4 rounded-xl border border-white/10 px-4 py-3 text-left text-sm text-white hover:border-violet-400/60 hover:bg-white/5 disabled:cursor-wait"
              disabled={busy !== null}
              onClick={() => void download(file.path)}
            >
              <span className="font-medium">{file.title}</span>
              <span className="shrink-0 text-xs font-semibold uppercase text-slate-300">
                {busy === file.path ? "Preparing…" : `Download ${file.path.split(".").pop()}`}
              </span>
            </button>
          </li>
        ))}
      </ul>
      <p role="status" className="mt-3 text-sm text-amber-200 empty:hidden">
        {message}
      </p>
    </Panel>
  );
}

function Completion({ lessonId, next }: { lessonId: string; next: LessonPlayerProps["next"] }) {
  const progress = useAtom($progress, LOADING);
  const [saving, setSaving] = useState(false);
  const [message, setMessage] = useState("");
  const done = progress.status === "ready" && !!progress.data.find((r) => r.lesson_id === lessonId)?.completed;

  async function toggle(completed: boolean) {
    setSaving(true);
    setMessage("");
    const outcome = await setCompleted(lessonId, completed);
    setSaving(false);
    setMessage(
      outcome.ok
        ? completed
          ? "Lesson marked as complete."
          : "Lesson marked as not complete."
        : `Your progress could not be saved: ${outcome.message}`,
    );
  }

  return (
    <Panel
      as="section"
      aria-labelledby="completion-heading"
      className="flex flex-col gap-4 p-6 sm:flex-row sm:flex-wrap sm:items-center sm:justify-between"
    >
      <h2 id="completion-heading" className="sr-only">
        Your progress in this lesson
      </h2>
      {done ? (
        <p className="flex items-center gap-2 font-semibold text-green-300">
          <CheckIcon className="size-5" /> Completed
        </p>
      ) : (
        <p className="text-slate-300">Finished the lesson and its exercise?</p>
      )}
      <div className="flex flex-wrap items-center gap-3">
        {done ? (
          <>
            <button
              type="button"
              className={pillButtonClass.secondary}
              disabled={saving}
              onClick={() => void toggle(false)}
            >
              Mark as not complete
            </button>
            {next && (
              <a href={next.href} className={pillButtonClass.primary}>
                Next lesson →
              </a>
            )}
          </>
        ) : (
          <button
            type="button"
            className={pillButtonClass.primary}
            disabled={saving || progress.status === "loading"}
            onClick={() => void toggle(true)}
          >
            {saving ? "Saving…" : "Mark as complete"}
          </button>
        )}
      </div>
      <p role="status" className="text-sm text-slate-300 empty:hidden sm:basis-full">
        {message}
      </p>
    </Panel>
  );
}
