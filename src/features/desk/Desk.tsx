/**
 * /desk (docs/operations.md, "The team and its roles"): where the team works its leads, follows its
 * students and sees its orders. Staff only, as the database decides: the page asks for the user's
 * own row of `staff` (the portal store's `$staffRole`); a customer is told "This page is for the
 * team" and every table would answer them nothing anyway. An admin sees Leads, Offers, Students
 * and Orders, and sends a coached offer from a lead (docs/coached-offers.md); a coach sees
 * Students. The view and its filters live in the address, so a reload or Back keeps them.
 */
import { lazy, Suspense, useCallback, useEffect, useState, type ReactNode } from "react";
import { $auth } from "~/stores/session";
import { useAtom } from "~/lib/useAtom";
import { LoadingNote, Panel, pillButtonClass, Skeleton } from "~/components/ui/panel";
import { formatCents } from "@advisor-accelerator/shared/money.ts";
import { $staffRole, LOADING } from "../portal/store";
import { AUTH_LOADING } from "../portal/ui";
import {
  fetchAllLeads,
  fetchAllStudents,
  fetchHeldPayments,
  fetchLead,
  fetchLeadHistory,
  fetchLeads,
  fetchMonthTotals,
  fetchOrders,
  fetchStudent,
  fetchStudents,
  leadQueryOf,
  takeArrived,
  takePrefetched,
  type HeldPayment,
  type LeadEvent,
  type LeadListRow,
  type LeadRow,
  type MonthTotal,
  type OrderRow,
  type OrderStatus,
  type Page,
  type StudentDetail,
  type StudentFilter,
  type StudentRow,
  updateLead,
} from "./data";
import { LEAD_STATUS_LABELS, LEAD_STATUSES, type LeadStatus, STALLED_DAYS, toCsv } from "./logic";
import {
  dateTime,
  day,
  download,
  ExportButton,
  Field,
  inputClass,
  Pager,
  pageOf,
  Pill,
  SelectField,
  Table,
  useDeskMark,
  useRemote,
  type ViewProps,
} from "./ui";

// The coached offers' parts, loaded when first shown (./Offers.tsx).
const LeadOffers = lazy(() => import("./Offers").then((m) => ({ default: m.LeadOffers })));
const Offers = lazy(() => import("./Offers").then((m) => ({ default: m.Offers })));

const LEAD_STATUS_OPTIONS = LEAD_STATUSES.map((s) => [s, LEAD_STATUS_LABELS[s]] as const);
import type { StaffRole } from "@advisor-accelerator/shared/staff-roles.ts";

/** A program as the desk shows it: from content, as the build knows it. */
export interface DeskProgram {
  key: string;
  id: string;
  name: string;
  cohortStarts: string[];
  lessons: { id: string; title: string; module: number }[];
}

/** A coached offer an admin can send (content/offers.yaml, those with a way to pay). */
export interface DeskOffer {
  id: string;
  /** The checkout key of the program it enrols in. */
  productKey: string;
  priceCents: number;
  /** The offer's price as its sales page writes it ("$35,000 + $450/month"). */
  priceLabel: string;
}

interface Props {
  programs: DeskProgram[];
  offers: DeskOffer[];
  /** The business's time zone (content/site.yaml): days and months are read in it. */
  timeZone: string;
}

type View = "leads" | "offers" | "students" | "orders";
const VIEWS: Record<View, { label: string; admin: boolean }> = {
  leads: { label: "Leads", admin: true },
  offers: { label: "Offers", admin: true },
  students: { label: "Students", admin: false },
  orders: { label: "Orders", admin: true },
};

/** The address's query, read and written as the desk's state. */
function useQuery(): [URLSearchParams, (changes: Record<string, string | null>) => void] {
  const [query, setQuery] = useState(() => new URLSearchParams(typeof window === "undefined" ? "" : location.search));
  useEffect(() => {
    const back = () => setQuery(new URLSearchParams(location.search));
    addEventListener("popstate", back);
    return () => removeEventListener("popstate", back);
  }, []);
  const update = useCallback((changes: Record<string, string | null>) => {
    const next = new URLSearchParams(location.search);
    for (const [key, value] of Object.entries(changes)) {
      if (value === null || value === "") next.delete(key);
      else next.set(key, value);
    }
    const search = next.toString();
    history.pushState(null, "", search ? `?${search}` : location.pathname);
    setQuery(next);
  }, []);
  return [query, update];
}

export default function Desk({ programs, offers, timeZone }: Props) {
  const auth = useAtom($auth, AUTH_LOADING);
  const role = useAtom($staffRole, LOADING);
  if (auth.status !== "signed-in" || role.status === "loading") {
    return (
      <div aria-busy="true">
        <LoadingNote>Loading the desk…</LoadingNote>
        <Skeleton className="h-9 w-48" />
        <Skeleton className="mt-8 h-64 w-full" />
      </div>
    );
  }
  if (role.status === "error") {
    return <Notice title="The desk could not be loaded">Please reload the page in a moment.</Notice>;
  }
  if (role.data === null) {
    return (
      <Notice title="This page is for the team">
        It shows the business&apos;s leads, students and orders to its staff. Your programs are in{" "}
        <a href="/portal" className="underline underline-offset-4 hover:text-white">
          your portal
        </a>
        .
      </Notice>
    );
  }
  return <StaffDesk role={role.data} programs={programs} offers={offers} timeZone={timeZone} />;
}

function Notice({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Panel as="section" className="mx-auto max-w-2xl p-8 text-center">
      <h1 className="text-2xl font-bold text-white">{title}</h1>
      <p className="mt-3 text-slate-300">{children}</p>
    </Panel>
  );
}

function StaffDesk({ role, programs, offers, timeZone }: { role: StaffRole } & Props) {
  const [query, setQuery] = useQuery();
  const views = (Object.keys(VIEWS) as View[]).filter((view) => role === "admin" || !VIEWS[view].admin);
  const asked = query.get("view") as View | null;
  const view = asked && views.includes(asked) ? asked : views[0]!;
  return (
    <div>
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold tracking-tight text-white">Desk</h1>
          <p className="mt-1 text-sm text-slate-400">Signed in as {role === "admin" ? "an admin" : "a coach"}.</p>
        </div>
        <nav aria-label="Desk">
          <ul className="flex gap-1 rounded-full border border-white/10 bg-panel p-1">
            {views.map((v) => (
              <li key={v}>
                <a
                  href={`?view=${v}`}
                  aria-current={v === view ? "page" : undefined}
                  onClick={(event) => {
                    event.preventDefault();
                    setQuery({
                      view: v,
                      page: null,
                      q: null,
                      status: null,
                      program: null,
                      cohort: null,
                      show: null,
                      student: null,
                      month: null,
                    });
                  }}
                  className="block rounded-full px-4 py-2 text-sm font-semibold text-slate-300 hover:text-white aria-[current=page]:bg-violet-600 aria-[current=page]:text-white"
                >
                  {VIEWS[v].label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      <div className="mt-8">
        {view === "leads" && (
          <Leads query={query} setQuery={setQuery} timeZone={timeZone} programs={programs} offers={offers} />
        )}
        {view === "offers" && (
          <Suspense fallback={<Skeleton className="h-64 w-full" />}>
            <Offers query={query} setQuery={setQuery} timeZone={timeZone} programs={programs} />
          </Suspense>
        )}
        {view === "students" && (
          <Students
            query={query}
            setQuery={setQuery}
            programs={programs}
            timeZone={timeZone}
            admin={role === "admin"}
          />
        )}
        {view === "orders" && <Orders query={query} setQuery={setQuery} programs={programs} timeZone={timeZone} />}
      </div>
    </div>
  );
}

// Leads ------------------------------------------------------------------------------------------

function Leads({
  query,
  setQuery,
  timeZone,
  programs,
  offers,
}: ViewProps & { programs: DeskProgram[]; offers: DeskOffer[] }) {
  const { page, search, status, key } = leadQueryOf(query);
  const [typed, setTyped] = useState(search);
  // Back or Forward changes the search in the address: the box follows it (React's "adjusting
  // state when a prop changes"), so the debounce below never pushes the old text back.
  const [shownSearch, setShownSearch] = useState(search);
  if (search !== shownSearch) {
    setShownSearch(search);
    setTyped(search);
  }
  const [open, setOpen] = useState<string | null>(null);
  const [saved, setSaved] = useState<Record<string, Pick<LeadRow, "status" | "note" | "status_changed_at">>>({});
  const [state] = useRemote(
    key,
    () => takePrefetched<Page<LeadListRow>>(key) ?? fetchLeads({ page, search, status }),
    () => takeArrived<Page<LeadListRow>>(key),
  );

  // The search runs a moment after typing stops.
  useEffect(() => {
    if (typed === search) return;
    const timer = setTimeout(() => setQuery({ q: typed.trim() || null, page: null }), 300);
    return () => clearTimeout(timer);
  }, [typed, search, setQuery]);

  useDeskMark(state.status === "ready");
  const shown = (lead: LeadListRow): LeadListRow => ({ ...lead, ...saved[lead.id] });
  return (
    <section aria-labelledby="leads-heading">
      <h2 id="leads-heading" className="text-xl font-bold text-white">
        Leads
      </h2>
      <p className="mt-1 text-sm text-slate-400">
        Every consultation request, newest first, with where the visit came from.
      </p>
      <div className="mt-4 flex flex-wrap items-end gap-4">
        <Field label="Search by name or e-mail" className="w-full sm:w-72">
          {(id) => (
            <input
              id={id}
              type="search"
              className={inputClass}
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
            />
          )}
        </Field>
        <SelectField
          label="Status"
          className="w-40"
          value={status}
          options={[["", "Any status"], ...LEAD_STATUS_OPTIONS]}
          onChange={(value) => setQuery({ status: value || null, page: null })}
        />
        <div className="ml-auto">
          <ExportButton
            label="Export leads (CSV)"
            run={async () =>
              download(
                "leads.csv",
                toCsv(
                  [
                    { label: "Received", value: (l: LeadRow) => l.created_at },
                    { label: "Name", value: (l) => l.name },
                    { label: "E-mail", value: (l) => l.email },
                    { label: "Phone", value: (l) => l.phone },
                    { label: "Firm", value: (l) => l.firm },
                    { label: "AUM", value: (l) => l.aum },
                    { label: "Page", value: (l) => l.page },
                    { label: "Source", value: (l) => l.utm_source },
                    { label: "Medium", value: (l) => l.utm_medium },
                    { label: "Campaign", value: (l) => l.utm_campaign },
                    { label: "Referrer", value: (l) => l.referrer },
                    { label: "Status", value: (l) => LEAD_STATUS_LABELS[l.status] },
                    { label: "Note", value: (l) => l.note },
                    { label: "Message", value: (l) => l.help },
                  ],
                  await fetchAllLeads({ search, status }),
                ),
              )
            }
          />
        </div>
      </div>
      <div className="mt-4">
        <Table
          caption="Consultation requests"
          state={
            state.status === "ready"
              ? { status: "ready", data: { ...state.data, rows: state.data.rows.map(shown) } }
              : state
          }
          rowKey={(lead) => lead.id}
          empty={search || status ? "No lead matches these filters." : "No consultation requests yet."}
          columns={[
            { label: "Received", cell: (l) => dateTime(l.created_at, timeZone), className: "whitespace-nowrap" },
            {
              label: "Name",
              cell: (l) => (
                <button
                  type="button"
                  aria-expanded={open === l.id}
                  onClick={() => setOpen(open === l.id ? null : l.id)}
                  className="text-left font-semibold text-white underline decoration-slate-500 underline-offset-4 hover:decoration-white"
                >
                  {l.name}
                </button>
              ),
            },
            { label: "E-mail", cell: (l) => l.email },
            {
              label: "Came from",
              cell: (l) => [l.utm_source, l.utm_campaign].filter(Boolean).join(" · ") || l.referrer || "Direct",
            },
            { label: "Status", cell: (l) => <StatusBadge status={l.status} /> },
          ]}
          expanded={(l) =>
            open === l.id ? (
              <LeadDetail
                lead={l}
                timeZone={timeZone}
                programs={programs}
                offers={offers}
                onSaved={(values) => setSaved((all) => ({ ...all, [l.id]: values }))}
              />
            ) : null
          }
        />
        {state.status === "ready" && (
          <Pager page={page} total={state.data.total} noun="lead" onPage={(p) => setQuery({ page: String(p) })} />
        )}
      </div>
    </section>
  );
}

const LEAD_TONES = { new: "sky", contacted: "violet", booked: "amber", won: "green", lost: "slate" } as const;

function StatusBadge({ status }: { status: LeadStatus }) {
  return <Pill tone={LEAD_TONES[status]}>{LEAD_STATUS_LABELS[status]}</Pill>;
}

function LeadDetail({
  lead,
  timeZone,
  programs,
  offers,
  onSaved,
}: {
  lead: LeadListRow;
  timeZone: string;
  programs: DeskProgram[];
  offers: DeskOffer[];
  onSaved: (values: Pick<LeadRow, "status" | "note" | "status_changed_at">) => void;
}) {
  const [status, setStatus] = useState<LeadStatus>(lead.status);
  const [note, setNote] = useState(lead.note);
  const [saving, setSaving] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [history, reload] = useRemote<LeadEvent[]>(lead.id, () => fetchLeadHistory(lead.id));
  const [details] = useRemote<LeadRow>(`lead|${lead.id}`, () => fetchLead(lead.id));
  const full = details.status === "ready" ? details.data : null;
  const facts: [string, string | null][] = full
    ? [
        ["Phone", full.phone],
        ["Firm", full.firm],
        ["Assets under management", full.aum],
        ["Form", full.page],
        ["First page of the visit", full.landing_page],
        ["Referrer", full.referrer],
        ["Campaign", [full.utm_source, full.utm_medium, full.utm_campaign].filter(Boolean).join(" / ") || null],
      ]
    : [];
  return (
    <div>
      <div className="grid gap-6 lg:grid-cols-2">
        <div aria-busy={details.status === "loading"}>
          {details.status === "loading" && (
            <>
              <LoadingNote />
              <Skeleton className="h-24 w-full" />
            </>
          )}
          {details.status === "error" && <p className="text-sm text-red-300">The request could not be loaded.</p>}
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            {facts.map(([label, value]) => (
              <div key={label} className="contents">
                <dt className="text-slate-400">{label}</dt>
                <dd className="text-slate-200">{value || "—"}</dd>
              </div>
            ))}
          </dl>
          {full?.help && (
            <blockquote className="mt-4 whitespace-pre-wrap border-l-4 border-violet-400/40 pl-4 text-sm text-slate-200">
              {full.help}
            </blockquote>
          )}
        </div>
        <form
          className="space-y-3"
          onSubmit={(event) => {
            event.preventDefault();
            setSaving(true);
            setMessage(null);
            updateLead(lead.id, status, note.trim())
              .then((values) => {
                onSaved(values);
                setMessage({ ok: true, text: "Saved." });
                reload();
              })
              .catch((error: unknown) => {
                console.error("Saving the lead failed:", error);
                setMessage({ ok: false, text: "The change was not saved. Please try again." });
              })
              .finally(() => setSaving(false));
          }}
        >
          <SelectField
            label="Status"
            value={status}
            options={LEAD_STATUS_OPTIONS}
            onChange={(value) => setStatus(value as LeadStatus)}
          />
          <Field label="Note">
            {(id) => (
              <textarea
                id={id}
                rows={3}
                maxLength={2000}
                className={inputClass}
                value={note}
                onChange={(e) => setNote(e.target.value)}
              />
            )}
          </Field>
          <div className="flex items-center gap-3">
            <button type="submit" className={pillButtonClass.primary} disabled={saving}>
              {saving ? "Saving…" : "Save"}
            </button>
            <p role="status" className={message?.ok === false ? "text-sm text-red-300" : "text-sm text-green-300"}>
              {message?.text}
            </p>
          </div>
          <div>
            <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-400">History</h3>
            {history.status === "loading" && <Skeleton className="mt-2 h-4 w-2/3" />}
            {history.status === "error" && (
              <p className="mt-2 text-sm text-red-300">The history could not be loaded.</p>
            )}
            {history.status === "ready" && (
              <ul className="mt-2 space-y-1 text-sm text-slate-300">
                {history.data.length === 0 && <li>No changes yet.</li>}
                {history.data.map((event, i) => (
                  <li key={i}>
                    {dateTime(event.created_at, timeZone)}: {LEAD_STATUS_LABELS[event.status]}
                    {event.note ? ` — “${event.note}”` : ""} by {event.user_email ?? "the system"}
                  </li>
                ))}
              </ul>
            )}
          </div>
        </form>
      </div>
      <Suspense fallback={<Skeleton className="mt-6 h-24 w-full" />}>
        <LeadOffers lead={lead} programs={programs} offers={offers} timeZone={timeZone} />
      </Suspense>
    </div>
  );
}

// Students ---------------------------------------------------------------------------------------

function Students({
  query,
  setQuery,
  programs,
  timeZone,
  admin,
}: ViewProps & { programs: DeskProgram[]; admin: boolean }) {
  const page = pageOf(query);
  const productKey = programs.some((p) => p.key === query.get("program")) ? query.get("program")! : "";
  const program = programs.find((p) => p.key === productKey);
  const cohort = program?.cohortStarts.includes(query.get("cohort") ?? "") ? query.get("cohort")! : "";
  const show = (["not-started", "stalled"] as const).find((f) => f === query.get("show")) ?? "";
  const student = query.get("student");
  const [state] = useRemote(`${page}|${productKey}|${cohort}|${show}`, () =>
    fetchStudents({ page, productKey, cohort, filter: show as StudentFilter }),
  );
  useDeskMark(state.status === "ready");
  const byKey = new Map(programs.map((p) => [p.key, p]));
  const lessonTitle = (id: string | null) => programs.flatMap((p) => p.lessons).find((l) => l.id === id)?.title ?? id;
  if (student) {
    return (
      <Student userId={student} programs={programs} timeZone={timeZone} admin={admin} onBack={() => history.back()} />
    );
  }
  return (
    <section aria-labelledby="students-heading">
      <h2 id="students-heading" className="text-xl font-bold text-white">
        Students
      </h2>
      <p className="mt-1 text-sm text-slate-400">Everyone who bought a program, newest first, and how far they are.</p>
      <div className="mt-4 flex flex-wrap items-end gap-4">
        <SelectField
          label="Program"
          className="w-64"
          value={productKey}
          options={[["", "All programs"], ...programs.map((p) => [p.key, p.name] as const)]}
          onChange={(value) => setQuery({ program: value || null, cohort: null, page: null })}
        />
        {program && program.cohortStarts.length > 0 && (
          <SelectField
            label="Cohort"
            className="w-48"
            value={cohort}
            options={[
              ["", "Every cohort"],
              ...program.cohortStarts.map((start) => [start, `Starting ${day(start, timeZone)}`] as const),
            ]}
            onChange={(value) => setQuery({ cohort: value || null, page: null })}
          />
        )}
        <SelectField
          label="Show"
          className="w-60"
          value={show}
          options={[
            ["", "Every student"],
            ["not-started", "Not started"],
            ["stalled", `No activity for ${STALLED_DAYS} days`],
          ]}
          onChange={(value) => setQuery({ show: value || null, page: null })}
        />
        <div className="ml-auto">
          <ExportButton
            label="Export students (CSV)"
            run={async () =>
              download(
                "students.csv",
                toCsv(
                  [
                    { label: "Name", value: (s: StudentRow) => s.full_name },
                    { label: "E-mail", value: (s) => s.email },
                    { label: "Program", value: (s) => byKey.get(s.product_key)?.name ?? s.product_key },
                    { label: "Cohort", value: (s) => s.cohort_start },
                    { label: "Purchased", value: (s) => s.purchased_at },
                    { label: "Status", value: (s) => s.status },
                    { label: "Lessons completed", value: (s) => s.lessons_completed },
                    { label: "Lessons", value: (s) => byKey.get(s.product_key)?.lessons.length ?? "" },
                    { label: "Last lesson", value: (s) => lessonTitle(s.last_lesson_id) },
                    { label: "Last activity", value: (s) => s.last_activity_at },
                    { label: "Last sign-in", value: (s) => s.last_sign_in_at },
                  ],
                  await fetchAllStudents({ productKey, cohort, filter: show as StudentFilter }),
                ),
              )
            }
          />
        </div>
      </div>
      <div className="mt-4">
        <Table
          caption="Students"
          state={state}
          rowKey={(s) => s.order_id}
          empty={productKey || show ? "No student matches these filters." : "No students yet."}
          columns={[
            {
              label: "Student",
              cell: (s) => (
                <a
                  href={`?view=students&student=${s.user_id}`}
                  onClick={(event) => {
                    event.preventDefault();
                    setQuery({ student: s.user_id });
                  }}
                  className="font-semibold text-white underline decoration-slate-500 underline-offset-4 hover:decoration-white"
                >
                  {s.full_name || s.email}
                </a>
              ),
            },
            { label: "E-mail", cell: (s) => s.email },
            {
              label: "Program",
              cell: (s) => (
                <>
                  {byKey.get(s.product_key)?.name ?? s.product_key}
                  {s.cohort_start && (
                    <span className="block text-xs text-slate-400">Cohort of {day(s.cohort_start, timeZone)}</span>
                  )}
                  {s.status !== "completed" && (
                    <span className="block text-xs text-amber-200">
                      {s.status === "refunded" ? "Refunded" : "Disputed"}
                    </span>
                  )}
                </>
              ),
            },
            { label: "Purchased", cell: (s) => day(s.purchased_at, timeZone), className: "whitespace-nowrap" },
            {
              label: "Progress",
              cell: (s) => `${s.lessons_completed} of ${byKey.get(s.product_key)?.lessons.length ?? "?"} lessons`,
              className: "whitespace-nowrap",
            },
            {
              label: "Last activity",
              cell: (s) =>
                s.last_activity_at ? (
                  <>
                    {lessonTitle(s.last_lesson_id)}
                    <span className="block text-xs text-slate-400">{dateTime(s.last_activity_at, timeZone)}</span>
                  </>
                ) : (
                  "Not started"
                ),
            },
            {
              label: "Last sign-in",
              cell: (s) => dateTime(s.last_sign_in_at, timeZone),
              className: "whitespace-nowrap",
            },
          ]}
        />
        {state.status === "ready" && (
          <Pager page={page} total={state.data.total} noun="student" onPage={(p) => setQuery({ page: String(p) })} />
        )}
      </div>
    </section>
  );
}

function Student({
  userId,
  programs,
  timeZone,
  admin,
  onBack,
}: {
  userId: string;
  programs: DeskProgram[];
  timeZone: string;
  admin: boolean;
  onBack: () => void;
}) {
  const [state] = useRemote<StudentDetail>(userId, () => fetchStudent(userId));
  const [orders] = useRemote<Page<OrderRow> | null>(`orders|${userId}|${admin}`, () =>
    admin ? fetchOrders({ page: 1, status: "", userId }) : Promise.resolve(null),
  );
  const first = state.status === "ready" ? state.data.enrolments[0] : undefined;
  return (
    <section aria-labelledby="student-heading" aria-busy={state.status === "loading"}>
      <button
        type="button"
        onClick={onBack}
        className="text-sm text-slate-300 underline underline-offset-4 hover:text-white"
      >
        ← All students
      </button>
      <h2 id="student-heading" className="mt-3 text-xl font-bold text-white">
        {state.status === "ready" ? first?.full_name || first?.email || "Student" : "Student"}
      </h2>
      {state.status === "loading" && (
        <>
          <LoadingNote />
          <Skeleton className="mt-4 h-40 w-full" />
        </>
      )}
      {state.status === "error" && (
        <p role="alert" className="mt-4 text-red-300">
          This student could not be loaded. Please try again in a moment.
        </p>
      )}
      {state.status === "ready" && (
        <>
          <p className="mt-1 text-sm text-slate-400">
            {first?.email} ·{" "}
            {first?.last_sign_in_at ? `last signed in ${dateTime(first.last_sign_in_at, timeZone)}` : "never signed in"}
          </p>
          {state.data.enrolments.length === 0 && <p className="mt-4 text-slate-300">No program bought.</p>}
          {state.data.enrolments.map((enrolment) => {
            const program = programs.find((p) => p.key === enrolment.product_key);
            const done = new Map(state.data.progress.map((row) => [row.lesson_id, row]));
            return (
              <Panel
                as="section"
                key={enrolment.order_id}
                className="mt-6 p-6"
                aria-label={program?.name ?? enrolment.product_key}
              >
                <h3 className="text-lg font-semibold text-white">{program?.name ?? enrolment.product_key}</h3>
                <p className="mt-1 text-sm text-slate-400">
                  Bought {day(enrolment.purchased_at, timeZone)}
                  {enrolment.cohort_start ? ` · cohort of ${day(enrolment.cohort_start, timeZone)}` : ""} ·{" "}
                  {enrolment.lessons_completed} of {program?.lessons.length ?? "?"} lessons completed
                  {enrolment.status !== "completed" ? ` · ${enrolment.status}` : ""}
                </p>
                <ol className="mt-4 space-y-1 text-sm">
                  {(program?.lessons ?? []).map((lesson, i) => {
                    const row = done.get(lesson.id);
                    const label = row?.completed
                      ? `Completed ${day(row.completed_at, timeZone)}`
                      : row
                        ? `Started ${day(row.updated_at, timeZone)}`
                        : "Not started";
                    return (
                      <li key={lesson.id} className="flex justify-between gap-4 border-b border-white/5 py-1.5">
                        <span className="text-slate-200">
                          {i + 1}. {lesson.title}
                        </span>
                        <span className={`shrink-0 text-right ${row?.completed ? "text-green-300" : "text-slate-400"}`}>
                          {label}
                        </span>
                      </li>
                    );
                  })}
                </ol>
              </Panel>
            );
          })}
          {admin && orders.status === "ready" && orders.data && (
            <Panel as="section" className="mt-6 p-6" aria-labelledby="student-orders">
              <h3 id="student-orders" className="text-lg font-semibold text-white">
                Orders
              </h3>
              <ul className="mt-3 space-y-1 text-sm text-slate-200">
                {orders.data.rows.map((order) => (
                  <li key={order.order_id}>
                    {day(order.created_at, timeZone)} ·{" "}
                    {programs.find((p) => p.key === order.product_key)?.name ?? order.product_key} ·{" "}
                    {formatCents(order.amount_total, order.currency)} · {order.status}
                  </li>
                ))}
              </ul>
            </Panel>
          )}
        </>
      )}
    </section>
  );
}

// Orders -------------------------------------------------------------------------------------------

const ORDER_STATUSES: OrderStatus[] = ["completed", "pending", "refunded", "disputed", "canceled", "failed"];

/** The payment in Stripe's dashboard: test mode's for a test session. */
function stripeLink(order: OrderRow): string | null {
  if (!order.payment_intent_id) return null;
  const test = order.checkout_session_id.startsWith("cs_test_") ? "test/" : "";
  return `https://dashboard.stripe.com/${test}payments/${order.payment_intent_id}`;
}

function thisMonth(timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit" }).format(new Date());
}

function Orders({ query, setQuery, programs, timeZone }: ViewProps & { programs: DeskProgram[] }) {
  const page = pageOf(query);
  const status = ORDER_STATUSES.find((s) => s === query.get("status")) ?? "";
  const month = /^\d{4}-\d{2}$/.test(query.get("month") ?? "") ? query.get("month")! : thisMonth(timeZone);
  const [state] = useRemote(`${page}|${status}`, () => fetchOrders({ page, status }));
  const [totals] = useRemote<MonthTotal[]>(month, () => fetchMonthTotals(month));
  const [held] = useRemote<HeldPayment[]>("held", fetchHeldPayments);
  const name = (key: string) => programs.find((p) => p.key === key)?.name ?? key;
  return (
    <section aria-labelledby="orders-heading">
      <h2 id="orders-heading" className="text-xl font-bold text-white">
        Orders
      </h2>
      <div className="mt-4 flex flex-wrap items-end gap-4">
        <Field label="Month" className="w-48">
          {(id) => (
            <input
              id={id}
              type="month"
              className={inputClass}
              value={month}
              onChange={(e) => setQuery({ month: e.target.value || null })}
            />
          )}
        </Field>
      </div>
      <div
        className="relative mt-4 overflow-x-auto rounded-2xl border border-white/10 bg-panel"
        aria-busy={totals.status === "loading"}
        tabIndex={0}
        role="group"
        aria-label="Totals for the month"
      >
        <table className="w-full min-w-[36rem] text-left text-sm">
          <caption className="sr-only">Totals per program for the month</caption>
          <thead className="border-b border-white/10 text-xs uppercase tracking-wide text-slate-400">
            <tr>
              <th scope="col" className="px-4 py-3">
                Program
              </th>
              <th scope="col" className="px-4 py-3">
                Status
              </th>
              <th scope="col" className="px-4 py-3">
                Orders
              </th>
              <th scope="col" className="px-4 py-3">
                Amount
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-white/5 text-slate-200">
            {totals.status === "loading" && (
              <tr>
                <td colSpan={4} className="px-4 py-3">
                  <LoadingNote />
                  <Skeleton className="h-5 w-full" />
                </td>
              </tr>
            )}
            {totals.status === "error" && (
              <tr>
                <td colSpan={4} role="alert" className="px-4 py-4 text-red-300">
                  The totals could not be loaded.
                </td>
              </tr>
            )}
            {totals.status === "ready" && totals.data.length === 0 && (
              <tr>
                <td colSpan={4} className="px-4 py-4 text-slate-400">
                  No orders this month.
                </td>
              </tr>
            )}
            {totals.status === "ready" &&
              totals.data.map((t) => (
                <tr key={`${t.product_key}|${t.status}|${t.currency}`}>
                  <td className="px-4 py-2">{name(t.product_key)}</td>
                  <td className="px-4 py-2">{t.status}</td>
                  <td className="px-4 py-2">{t.orders}</td>
                  <td className="px-4 py-2">{formatCents(t.amount, t.currency)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </div>
      {held.status === "ready" && held.data.length > 0 && (
        <Panel as="section" className="mt-6 p-6" aria-labelledby="held-heading">
          <h3 id="held-heading" className="text-lg font-semibold text-white">
            Payments held for review
          </h3>
          <ul className="mt-3 space-y-2 text-sm text-slate-200">
            {held.data.map((h) => (
              <li key={h.event_id}>
                {dateTime(h.created_at, timeZone)} · {h.email ?? "no e-mail"} · {name(h.product_key)} ·{" "}
                {h.amount_total === null ? "no amount" : formatCents(h.amount_total, h.currency ?? "usd")}
                <span className="block text-slate-400">{h.reason}</span>
              </li>
            ))}
          </ul>
        </Panel>
      )}
      <div className="mt-6 flex flex-wrap items-end gap-4">
        <SelectField
          label="Order status"
          className="w-48"
          value={status}
          options={[["", "Any status"], ...ORDER_STATUSES.map((s) => [s, s[0]!.toUpperCase() + s.slice(1)] as const)]}
          onChange={(value) => setQuery({ status: value || null, page: null })}
        />
      </div>
      <div className="mt-4">
        <Table
          caption="Orders"
          state={state}
          rowKey={(o) => o.order_id}
          empty="No order matches."
          columns={[
            { label: "Date", cell: (o) => dateTime(o.created_at, timeZone), className: "whitespace-nowrap" },
            {
              label: "Buyer",
              cell: (o) => (
                <>
                  {o.full_name && <span className="block">{o.full_name}</span>}
                  {o.email}
                </>
              ),
            },
            { label: "Program", cell: (o) => name(o.product_key) },
            { label: "Amount", cell: (o) => formatCents(o.amount_total, o.currency), className: "whitespace-nowrap" },
            {
              label: "Status",
              cell: (o) => (
                <>
                  {o.status}
                  {o.status_changed_at && o.status !== "completed" && (
                    <span className="block text-xs text-slate-400">since {day(o.status_changed_at, timeZone)}</span>
                  )}
                  {o.dispute_status && (
                    <span className="block text-xs text-amber-200">
                      Dispute: {o.dispute_status.replace(/_/g, " ")}
                      {o.dispute_reason ? ` (${o.dispute_reason.replace(/_/g, " ")})` : ""}
                    </span>
                  )}
                </>
              ),
            },
            {
              label: "Stripe",
              cell: (o) => {
                const href = stripeLink(o);
                return href ? (
                  <a
                    href={href}
                    target="_blank"
                    rel="noreferrer"
                    className="underline underline-offset-4 hover:text-white"
                  >
                    Payment<span className="sr-only"> of {o.email} in Stripe</span>
                  </a>
                ) : (
                  "—"
                );
              },
            },
          ]}
        />
        {state.status === "ready" && (
          <Pager page={page} total={state.data.total} noun="order" onPage={(p) => setQuery({ page: String(p) })} />
        )}
      </div>
    </section>
  );
}
