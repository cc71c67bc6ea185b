/**
 * /portal (docs/product.md, Portal): the welcome (by first name once the profile has one; on a
 * first visit "Welcome", with where the new program is), the stat tiles (programs owned, total
 * invested, lessons completed, member since), My Courses (each opening the lesson to resume, with
 * the customer's progress; a program refunded or held by a payment dispute stays listed, saying so
 * and when, without a way in) and the tiles to settings and purchase history. Built with its loading
 * state (skeletons); the data comes from the portal store, which the page starts fetching before
 * this island hydrates.
 */
import { type ReactNode, useEffect, useId, useSyncExternalStore } from "react";
import { $auth } from "~/stores/session";
import { lessonCount } from "~/features/course/logic";
import { dayIn, formatDay } from "@advisor-accelerator/shared/cohort.ts";
import { Badge, EmptyState, LoadingNote, Panel, ProgressBar, Skeleton } from "~/components/ui/panel";
import {
  courseAnchor,
  courseLink,
  courseStarted,
  emailLocalPart,
  endedNote,
  firstVisitNote,
  greetingName,
  hasAnyCourse,
  isFirstVisit,
  lessonsDone,
  lessonsTile,
  memberSince,
  myCourses,
  portalProgress,
  portalStats,
  welcomeHeading,
  type CourseCard,
  type MyCourses,
  type PortalProgram,
  type ResumeRow,
} from "./logic";
import { $orders, $profile, $progress, LOADING, markPortalDataShown } from "./store";
import { AUTH_LOADING, Avatar } from "./ui";
import { useAtom } from "~/lib/useAtom";

interface Props {
  /** The catalogue's programs (content/programs/), as the cards show them. */
  programs: PortalProgram[];
  /** The business's time zone (content/site.yaml), in which a cohort's first day begins. */
  timeZone: string;
}

/** Whether this is the customer's first visit (logic.ts `isFirstVisit`); the static HTML cannot know (false). */
function useFirstVisit(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => isFirstVisit(window.location.search),
    () => false,
  );
}

const noSubscription = () => () => {};

export default function Dashboard({ programs, timeZone }: Props) {
  const auth = useAtom($auth, AUTH_LOADING);
  const firstVisit = useFirstVisit();
  const orders = useAtom($orders, LOADING);
  const profile = useAtom($profile, LOADING);
  const progress = useAtom($progress, LOADING);
  const user = auth.status === "signed-in" ? auth.user : null;

  useEffect(() => {
    if (orders.status === "ready" && profile.status === "ready") markPortalDataShown();
  }, [orders.status, profile.status]);

  // Purchase history links to a program's card (/portal#program-…), which exists once the orders
  // are here: then the card takes the focus, as the address asked, and so scrolls into view.
  const ordersReady = orders.status === "ready";
  useEffect(() => {
    if (!ordersReady || !window.location.hash) return;
    const target = document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
    if (target?.closest("#my-courses")) target.focus();
  }, [ordersReady]);

  const name = emailLocalPart(user?.email);
  const fullName = profile.status === "ready" ? profile.data?.full_name?.trim() : undefined;
  // The name to greet by waits for the profile (a failed profile greets by the e-mail, as the spec does).
  const greeting = user && profile.status !== "loading" ? greetingName(fullName, user.email) : null;
  const avatarUrl = profile.status === "ready" ? profile.data?.avatar_url : undefined;
  const stats = orders.status === "ready" ? portalStats(orders.data) : null;
  const courses = orders.status === "ready" ? myCourses(orders.data, programs) : null;
  const rows = progress.status === "ready" ? progress.data : null;
  const learned = courses && rows ? portalProgress(courses.active, rows) : null;
  const since = memberSince(user?.createdAt);

  return (
    <div className="space-y-12">
      <section aria-labelledby="welcome-heading" className="flex items-center gap-5">
        {profile.status === "loading" || !user ? (
          <Skeleton className="size-14 shrink-0 rounded-full" />
        ) : (
          <Avatar url={avatarUrl} name={fullName || name} size="sm" />
        )}
        <div className="min-w-0">
          <h1 id="welcome-heading" className="break-words text-3xl font-bold tracking-tight text-white sm:text-4xl">
            {greeting !== null ? (
              welcomeHeading(greeting, firstVisit)
            ) : (
              <span className="flex flex-wrap items-center gap-x-3">
                {firstVisit ? "Welcome" : "Welcome back"}
                <Skeleton className="h-8 w-32" />
              </span>
            )}
          </h1>
          <div className="mt-2 text-slate-300">
            {!user || profile.status === "loading" ? (
              <>
                <Skeleton className="h-5 w-64 max-w-full" />
                <LoadingNote>Loading your profile…</LoadingNote>
              </>
            ) : (
              <p className="break-words">
                {fullName ? `${fullName} · ${user.email ?? ""}` : `Signed in as ${user.email ?? name}`}
              </p>
            )}
            {firstVisit && courses && <FirstVisitNote courses={courses} />}
          </div>
        </div>
      </section>

      <section aria-labelledby="stats-heading">
        <h2 id="stats-heading" className="sr-only">
          Your account at a glance
        </h2>
        <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <StatTile
            label="Programs owned"
            value={stats ? String(stats.programsOwned) : null}
            failed={orders.status === "error"}
          />
          <StatTile
            label="Total invested"
            value={stats ? stats.totalInvested : null}
            failed={orders.status === "error"}
          />
          <StatTile
            label="Lessons completed"
            value={learned ? lessonsTile(learned) : null}
            failed={orders.status === "error" || progress.status === "error"}
          />
          <StatTile label="Member since" value={user ? since || "—" : null} />
        </dl>
      </section>

      <section aria-labelledby="courses-heading" aria-busy={orders.status === "loading"}>
        <h2 id="courses-heading" className="text-2xl font-bold tracking-tight text-white">
          My Courses
        </h2>
        <div id="my-courses" className="mt-6">
          {orders.status === "loading" && <CoursesSkeleton />}
          {orders.status === "error" && (
            <Panel as="p" className="p-6 text-slate-300">
              We couldn&rsquo;t load your courses just now. Please refresh the page in a moment.
            </Panel>
          )}
          {courses && (
            <Courses {...courses} progress={progress.status === "error" ? "error" : rows} timeZone={timeZone} />
          )}
        </div>
      </section>

      <section aria-labelledby="account-heading">
        <h2 id="account-heading" className="text-2xl font-bold tracking-tight text-white">
          Your Account
        </h2>
        <ul className="mt-6 grid gap-4 sm:grid-cols-2">
          <AccountTile
            href="/portal/settings"
            title="Contact & Settings"
            text="Update your contact details and your profile picture."
          />
          <AccountTile
            href="/portal/settings/purchase-history"
            title="Purchase History"
            text="See every order, its amount and its status."
          />
        </ul>
      </section>
    </div>
  );
}

/** A first visit's line under the welcome: their account is ready, and where their program is. */
function FirstVisitNote({ courses }: { courses: MyCourses }) {
  const note = firstVisitNote(courses);
  const link = "font-semibold text-violet-300 underline underline-offset-4 hover:text-white";
  return (
    <p className="mt-3 text-white">
      Your account is ready.{" "}
      {note.kind === "ready" &&
        (note.course.course ? (
          <>
            <a href={note.course.course} className={link}>
              {note.course.name}
            </a>{" "}
            is waiting for you under My Courses: start with its first lesson whenever you like.
          </>
        ) : (
          <>{note.course.name} is waiting for you under My Courses.</>
        ))}
      {note.kind === "clearing" && (
        <>{note.course.name} appears under My Courses as soon as your bank payment clears.</>
      )}
      {note.kind === "none" && <>The programs you buy appear under My Courses.</>}
    </p>
  );
}

function StatTile({ label, value, failed = false }: { label: string; value: string | null; failed?: boolean }) {
  return (
    <Panel className="p-6">
      <dt className="text-sm font-medium text-slate-300">{label}</dt>
      <dd className="mt-2 text-3xl font-bold tracking-tight text-white">
        {value !== null ? (
          value
        ) : failed ? (
          <span className="text-base font-medium text-slate-300">Not available</span>
        ) : (
          <>
            <Skeleton className="h-9 w-24" />
            <LoadingNote />
          </>
        )}
      </dd>
    </Panel>
  );
}

function CoursesSkeleton() {
  return (
    <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
      {[0, 1, 2].map((i) => (
        <Panel as="li" key={i} className="p-6">
          <Skeleton className="size-16 rounded-xl" />
          <Skeleton className="mt-5 h-6 w-3/4" />
          <Skeleton className="mt-3 h-4 w-full" />
          <Skeleton className="mt-2 h-4 w-5/6" />
          {i === 0 && <LoadingNote>Loading your courses…</LoadingNote>}
        </Panel>
      ))}
    </ul>
  );
}

/** The customer's progress rows; null while they load, "error" when they could not be. */
type Rows = ResumeRow[] | null | "error";

function Courses({ progress, timeZone, ...courses }: MyCourses & { progress: Rows; timeZone: string }) {
  const { active, processing, paused, ended } = courses;
  if (!hasAnyCourse(courses)) {
    return (
      <EmptyState
        title="You don’t have any programs yet."
        text="When you buy a program, it appears here."
        action={{ href: "/programs", label: "Browse programs" }}
      />
    );
  }
  return (
    <div className="space-y-10">
      {active.length > 0 ? (
        <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {active.map((course) => (
            <li key={course.key}>
              <CourseTile course={course} progress={progress} timeZone={timeZone} />
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-slate-300">
          No active programs yet.{" "}
          <a href="/programs" className="font-semibold text-violet-300 underline underline-offset-4 hover:text-white">
            Browse programs
          </a>
        </p>
      )}
      {processing.length > 0 && (
        <div>
          <h3 className="text-lg font-semibold text-white">Awaiting payment confirmation</h3>
          <p className="mt-1 text-sm text-slate-300">These open here as soon as your payment is confirmed.</p>
          <ul className="mt-4 space-y-3">
            {processing.map((course) => (
              <CourseRow key={course.key} course={course}>
                <span className="min-w-0 flex-1 font-medium text-white">{course.name}</span>
                <Badge tone="yellow">{course.status}</Badge>
              </CourseRow>
            ))}
          </ul>
        </div>
      )}
      {paused.length > 0 && (
        <div>
          <h3 className="text-lg font-semibold text-white">Paused until a payment is made</h3>
          <ul className="mt-4 space-y-3">
            {paused.map((course) => (
              <EndedCourse key={course.key} course={course} />
            ))}
          </ul>
          <p className="mt-3 text-sm text-slate-300">
            Your access returns the moment it is paid:{" "}
            <a
              href="/portal/settings/purchase-history"
              className="font-medium text-violet-300 underline underline-offset-4 hover:text-white"
            >
              pay or change your card in purchase history
            </a>
            .
          </p>
        </div>
      )}
      {ended.length > 0 && (
        <div>
          <h3 className="text-lg font-semibold text-white">Refunds and disputes</h3>
          <ul className="mt-4 space-y-3">
            {ended.map((course) => (
              <EndedCourse key={course.key} course={course} />
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

/**
 * A program the customer had and has no longer: refunded ("Refunded on Dec 3, 2026 · access ended")
 * or held by a payment dispute. No link into the course: the database would not open it.
 */
function EndedCourse({ course }: { course: CourseCard }) {
  const note = endedNote(course);
  return (
    <CourseRow course={course} faded>
      <div className="min-w-0 flex-1">
        <p className="font-medium text-white">{course.name}</p>
        <p className="mt-1 text-sm text-slate-300">
          {note.what}
          {note.day && (
            <>
              {course.status === "Paused" ? " since " : " on "}
              <time dateTime={course.endedAt}>{note.day}</time>
            </>
          )}
          <span aria-hidden="true"> · </span>
          <span className="sr-only">, </span>
          {note.access}
        </p>
      </div>
    </CourseRow>
  );
}

/**
 * A program in one of My Courses' lists below the tiles (awaiting payment, refunds and disputes):
 * its picture, `faded` when the course is closed to the customer, then what the list says of it.
 * Purchase history links to it by its anchor.
 */
function CourseRow({ course, faded = false, children }: { course: CourseCard; faded?: boolean; children: ReactNode }) {
  return (
    <Panel
      as="li"
      muted
      id={courseAnchor(course.key)}
      tabIndex={-1}
      className="flex items-center gap-4 p-4 focus-visible:outline-2 focus-visible:outline-sky-400"
    >
      {course.image ? (
        <img
          src={course.image}
          alt=""
          width={40}
          height={40}
          className={`size-10 shrink-0 rounded-lg${faded ? " opacity-60" : ""}`}
        />
      ) : (
        <span aria-hidden="true" className="size-10 shrink-0 rounded-lg bg-white/10" />
      )}
      {children}
    </Panel>
  );
}

function CourseTile({ course, progress, timeZone }: { course: CourseCard; progress: Rows; timeZone: string }) {
  const rows = Array.isArray(progress) ? progress : null;
  // The lesson to resume once the progress is here; until then (or without it) the course's outline.
  const href = courseLink(course, rows, timeZone);
  const count = rows && course.lessons ? lessonsDone(course.lessons, rows) : null;
  const action = rows && course.lessons && courseStarted(course.lessons, rows) ? "Continue course" : "Start course";
  const actionId = useId();
  return (
    <Panel
      as="article"
      id={courseAnchor(course.key)}
      tabIndex={-1}
      className="relative flex h-full flex-col p-6 transition-colors focus-within:border-violet-400/60 hover:border-violet-400/60 focus-visible:outline-2 focus-visible:outline-sky-400"
    >
      <div className="flex items-start justify-between gap-4">
        {course.image ? (
          <img src={course.image} alt="" width={64} height={64} className="size-16 rounded-xl" />
        ) : (
          <span aria-hidden="true" className="size-16 rounded-xl bg-white/10" />
        )}
        <Badge tone="green">{course.status}</Badge>
      </div>
      <h3 className="mt-5 text-lg font-semibold text-white">
        {href ? (
          <a
            href={href}
            aria-describedby={course.course ? actionId : undefined}
            className="after:absolute after:inset-0 after:rounded-2xl focus-visible:outline-none focus-visible:after:outline-2 focus-visible:after:outline-offset-2 focus-visible:after:outline-sky-400"
          >
            {course.name}
          </a>
        ) : (
          course.name
        )}
      </h3>
      {course.description && <p className="mt-2 flex-1 text-sm leading-6 text-slate-300">{course.description}</p>}
      {course.cohortStart && (
        <p className="mt-3 text-sm font-medium text-sky-200">
          {dayIn(timeZone) < course.cohortStart ? "Your cohort starts " : "Your cohort started "}
          {formatDay(course.cohortStart)}
        </p>
      )}
      {course.lessons && progress !== "error" && (
        <div className="mt-5">
          {count ? (
            <>
              <p className="text-sm text-slate-300">{lessonCount(count.done, count.total)}</p>
              <ProgressBar
                percent={Math.floor((count.done / Math.max(count.total, 1)) * 100)}
                label={`${course.name}: ${lessonCount(count.done, count.total)} completed`}
              />
            </>
          ) : (
            <>
              <Skeleton className="h-4 w-28" />
              <Skeleton className="mt-3 h-2 w-full rounded-full" />
            </>
          )}
        </div>
      )}
      {href && (
        <p aria-hidden="true" className="mt-5 text-sm font-semibold text-violet-300">
          {action} →
        </p>
      )}
      {/* What the card's link does, as its description ("Start course", "Continue course"). */}
      {course.course && (
        <span id={actionId} hidden>
          {action}
        </span>
      )}
    </Panel>
  );
}

function AccountTile({ href, title, text }: { href: string; title: string; text: string }) {
  return (
    <li>
      <Panel
        as="a"
        href={href}
        className="block h-full p-6 transition-colors hover:border-violet-400/60 hover:bg-white/5"
      >
        <span className="block text-lg font-semibold text-white">{title}</span>
        <span className="mt-2 block text-sm leading-6 text-slate-300">{text}</span>
      </Panel>
    </li>
  );
}
