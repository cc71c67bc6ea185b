/**
 * The desk's reads and writes, with the staff member's own session: supabase-js over the REST API,
 * every row through the database's policies (supabase/migrations/*_staff.sql,
 * *_coached_offers.sql), and the one function an admin calls to send an offer. Each
 * list is one page, filtered, ordered and counted by PostgREST (`Range`, `count=exact`), so a
 * desk with 50,000 leads asks for 25 rows as one with ten does.
 */
import type { Database } from "~/lib/database";
import { functionFailure } from "~/lib/function-error";
import { supabase } from "~/lib/supabase";
import { isLeadStatus, type LeadStatus, type OfferStatus, pageRange, searchFilter, stalledBefore } from "./logic";

type Tables = Database["public"]["Tables"];

/** A page of rows and how many match in all. */
export interface Page<T> {
  rows: T[];
  total: number;
}

/** A lead as the desk reads it (LEAD_COLUMNS), typed from the migrations, its status narrowed. */
export type LeadRow = Pick<
  Tables["leads"]["Row"],
  | "id"
  | "created_at"
  | "name"
  | "email"
  | "phone"
  | "firm"
  | "aum"
  | "help"
  | "page"
  | "utm_source"
  | "utm_medium"
  | "utm_campaign"
  | "referrer"
  | "landing_page"
  | "note"
  | "status_changed_at"
> & { status: LeadStatus };

/** A lead as the list shows it; the rest of its answers are read when it is opened (`fetchLead`). */
export type LeadListRow = Pick<
  LeadRow,
  | "id"
  | "created_at"
  | "name"
  | "email"
  | "utm_source"
  | "utm_campaign"
  | "referrer"
  | "status"
  | "note"
  | "status_changed_at"
>;

const LEAD_LIST_COLUMNS =
  "id, created_at, name, email, utm_source, utm_campaign, referrer, status, note, status_changed_at";
const LEAD_COLUMNS = `${LEAD_LIST_COLUMNS}, phone, firm, aum, help, page, utm_medium, landing_page`;

export interface LeadQuery {
  page: number;
  search: string;
  status: LeadStatus | "";
}

/**
 * Reads started before the view that shows them exists: the desk asks for its first page as soon
 * as the session is known, beside the staff member's role, rather than a round trip after it.
 */
const early = new Map<string, Promise<unknown>>();
/** What reads in `early` answered, once they have. */
const arrived = new Map<string, unknown>();
const started = new Set<string>();

/** Starts `load` now under `key`, once per page; its first reader takes it. */
export function prefetch(key: string, load: () => Promise<unknown>): void {
  if (started.has(key)) return;
  started.add(key);
  const promise = load();
  promise.then(
    (data) => early.get(key) === promise && arrived.set(key, data),
    // A failure is the reader's to report: not an unhandled rejection meanwhile.
    () => {},
  );
  early.set(key, promise);
}

/** The read started under `key`, once; undefined when none was. */
export function takePrefetched<T>(key: string): Promise<T> | undefined {
  const promise = early.get(key) as Promise<T> | undefined;
  early.delete(key);
  arrived.delete(key);
  return promise;
}

/**
 * The answer of the read started under `key` when it has already arrived, taken once (as
 * takePrefetched); undefined otherwise. A view that finds it draws its rows in its first render,
 * not in a render after its first effect.
 */
export function takeArrived<T>(key: string): T | undefined {
  if (!arrived.has(key)) return undefined;
  const data = arrived.get(key) as T;
  takePrefetched(key);
  return data;
}

/** The leads' filters as the address gives them, and the key their page is read under. */
export function leadQueryOf(query: URLSearchParams): LeadQuery & { key: string } {
  const page = Math.max(1, Number(query.get("page")) || 1);
  const search = query.get("q") ?? "";
  const asked = query.get("status");
  const status = isLeadStatus(asked) ? asked : "";
  return { page, search, status, key: `leads|${page}|${search}|${status}` };
}

/**
 * Starts the read of the view the address opens on, when it is the leads (an admin's first view;
 * for anyone else the policies answer nothing, and a coach's desk opens on Students).
 */
export function prefetchFirstPage(): void {
  const query = new URLSearchParams(location.search);
  if ((query.get("view") ?? "leads") !== "leads") return;
  const leads = leadQueryOf(query);
  prefetch(leads.key, () => fetchLeads(leads));
}

/** PostgREST's largest answer (supabase/config.toml `max_rows`): an export reads in pages of it. */
const MAX_ROWS = 1000;

function leadsQuery({ search, status }: Omit<LeadQuery, "page">, columns: string, count: boolean) {
  let query = supabase
    .from("leads")
    .select(columns, count ? { count: "exact" } : undefined)
    .order("created_at", { ascending: false })
    .order("id");
  if (status) query = query.eq("status", status);
  const filter = searchFilter(search, ["name", "email"]);
  if (filter) query = query.or(filter);
  return query;
}

export async function fetchLeads(q: LeadQuery): Promise<Page<LeadListRow>> {
  const { from, to } = pageRange(q.page);
  const { data, error, count } = await leadsQuery(q, LEAD_LIST_COLUMNS, true).range(from, to);
  if (error) throw error;
  return { rows: (data ?? []) as unknown as LeadListRow[], total: count ?? 0 };
}

/** One lead, every answer and where the visit came from. */
export async function fetchLead(id: string): Promise<LeadRow> {
  const { data, error } = await supabase.from("leads").select(LEAD_COLUMNS).eq("id", id).single();
  if (error) throw error;
  return data as unknown as LeadRow;
}

/** Every lead the filters match, every column, for the CSV export. */
export function fetchAllLeads(q: Omit<LeadQuery, "page">): Promise<LeadRow[]> {
  return readAll<LeadRow>((from, to) => leadsQuery(q, LEAD_COLUMNS, false).range(from, to));
}

export interface LeadEvent {
  created_at: string;
  user_email: string | null;
  status: LeadStatus;
  note: string;
}

export async function fetchLeadHistory(id: string): Promise<LeadEvent[]> {
  const { data, error } = await supabase
    .from("lead_events")
    .select("created_at, user_email, status, note")
    .eq("lead_id", id)
    .order("id", { ascending: false });
  if (error) throw error;
  return (data ?? []) as LeadEvent[];
}

/** Saves a lead's status and note (`desk_update_lead`, an admin's alone); answers the saved values. */
export async function updateLead(
  id: string,
  status: LeadStatus,
  note: string,
): Promise<Pick<LeadRow, "status" | "note" | "status_changed_at">> {
  const { data, error } = await supabase.rpc("desk_update_lead", { p_id: id, p_status: status, p_note: note });
  if (error) throw error;
  return data as Pick<LeadRow, "status" | "note" | "status_changed_at">;
}

// Offers ------------------------------------------------------------------------------------------

/** An offer as the desk lists it (`desk_offers`, admins only). */
export interface OfferRow {
  id: string;
  lead_id: string | null;
  offer_key: string;
  product_key: string;
  name: string;
  email: string;
  cohort_start: string | null;
  list_price_cents: number;
  price_cents: number;
  price_reason: string | null;
  created_at: string;
  expires_at: string;
  opened_at: string | null;
  paid_at: string | null;
  withdrawn_at: string | null;
  status: OfferStatus;
}

const OFFER_COLUMNS =
  "id, lead_id, offer_key, product_key, name, email, cohort_start, list_price_cents, price_cents, price_reason, created_at, expires_at, opened_at, paid_at, withdrawn_at, status";

export interface OfferQuery {
  page: number;
  status: OfferStatus | "";
  leadId?: string;
}

/** Offers sent, newest first: a page of them, or every one to a lead. */
export async function fetchOffers(q: OfferQuery): Promise<Page<OfferRow>> {
  const { from, to } = pageRange(q.page);
  let query = supabase
    .from("desk_offers")
    .select(OFFER_COLUMNS, { count: "exact" })
    .order("created_at", { ascending: false })
    .order("id");
  if (q.status) query = query.eq("status", q.status);
  if (q.leadId) query = query.eq("lead_id", q.leadId);
  const { data, error, count } = await query.range(from, to);
  if (error) throw error;
  return { rows: (data ?? []) as OfferRow[], total: count ?? 0 };
}

/** A paid offer's plan, as the desk shows its progress (`payment_plans`, admins only). */
export interface OfferPlan {
  offer_id: string;
  name: string;
  payments: { day: string; amountCents: number }[];
  paid_invoices: string[];
  past_due_since: string | null;
}

/** The plans of `offerIds` (those paid by instalments), one per offer. */
export async function fetchOfferPlans(offerIds: readonly string[]): Promise<OfferPlan[]> {
  if (offerIds.length === 0) return [];
  const { data, error } = await supabase
    .from("payment_plans")
    .select("offer_id, name, payments, paid_invoices, past_due_since")
    .in("offer_id", [...offerIds]);
  if (error) throw error;
  return (data ?? []) as unknown as OfferPlan[];
}

/** What an admin sends (functions/send-offer/handler.ts reads the same fields). */
export interface OfferRequest {
  lead: string;
  offer: string;
  cohortStart: string | null;
  priceCents: number;
  priceReason: string | null;
  expiresInDays: number;
}

/** Why an offer was not sent, in words, and the form's field to mend when it is one. */
export class OfferNotSent extends Error {
  readonly field: string | null;
  constructor(message: string, field: string | null = null) {
    super(message);
    this.field = field;
  }
}

/** Sends an offer through `send-offer` with the admin's session; answers when its link expires. */
export async function sendOffer(request: OfferRequest): Promise<{ id: string; expires_at: string }> {
  const { data, error } = await supabase.functions.invoke<{ id: string; expires_at: string }>("send-offer", {
    body: request,
  });
  if (!error && data) return data;
  const said = (await functionFailure(error))?.body as { error?: unknown; field?: unknown } | null | undefined;
  if (typeof said?.error === "string") {
    throw new OfferNotSent(said.error, typeof said.field === "string" ? said.field : null);
  }
  console.error("Sending the offer failed:", error);
  throw new OfferNotSent("The offer could not be sent. Please check the connection and try again.");
}

/** Withdraws an offer not yet paid (`desk_withdraw_offer`, an admin's alone). */
export async function withdrawOffer(id: string): Promise<void> {
  const { error } = await supabase.rpc("desk_withdraw_offer", { p_id: id });
  if (error) throw error;
}

// Students ----------------------------------------------------------------------------------------

export interface StudentRow {
  order_id: number;
  user_id: string;
  product_key: string;
  program: string | null;
  cohort_start: string | null;
  purchased_at: string;
  status: "completed" | "refunded" | "disputed";
  full_name: string | null;
  email: string | null;
  last_sign_in_at: string | null;
  lessons_completed: number;
  last_lesson_id: string | null;
  last_activity_at: string | null;
}

const STUDENT_COLUMNS =
  "order_id, user_id, product_key, program, cohort_start, purchased_at, status, full_name, email, last_sign_in_at, lessons_completed, last_lesson_id, last_activity_at";

/** "not-started": no lesson worked in; "stalled": none for STALLED_DAYS (or since buying). */
export type StudentFilter = "" | "not-started" | "stalled";

export interface StudentQuery {
  page: number;
  productKey: string;
  cohort: string;
  filter: StudentFilter;
}

function studentsQuery({ productKey, cohort, filter }: Omit<StudentQuery, "page">, count: boolean, now: Date) {
  let query = supabase
    .from("desk_students")
    .select(STUDENT_COLUMNS, count ? { count: "exact" } : undefined)
    .order("purchased_at", { ascending: false })
    .order("order_id");
  if (productKey) query = query.eq("product_key", productKey);
  if (cohort) query = query.eq("cohort_start", cohort);
  if (filter === "not-started") query = query.is("last_activity_at", null);
  if (filter === "stalled") query = query.eq("status", "completed").lt("last_active_at", stalledBefore(now));
  return query;
}

export async function fetchStudents(q: StudentQuery, now = new Date()): Promise<Page<StudentRow>> {
  const { from, to } = pageRange(q.page);
  const { data, error, count } = await studentsQuery(q, true, now).range(from, to);
  if (error) throw error;
  return { rows: (data ?? []) as StudentRow[], total: count ?? 0 };
}

export function fetchAllStudents(q: Omit<StudentQuery, "page">, now = new Date()): Promise<StudentRow[]> {
  return readAll<StudentRow>((from, to) => studentsQuery(q, false, now).range(from, to));
}

export interface StudentDetail {
  enrolments: StudentRow[];
  progress: { lesson_id: string; completed: boolean; completed_at: string | null; updated_at: string }[];
}

/** One student: each program they bought, and their progress lesson by lesson. */
export async function fetchStudent(userId: string): Promise<StudentDetail> {
  const [enrolments, progress] = await Promise.all([
    supabase.from("desk_students").select(STUDENT_COLUMNS).eq("user_id", userId).order("purchased_at"),
    supabase.from("lesson_progress").select("lesson_id, completed, completed_at, updated_at").eq("user_id", userId),
  ]);
  if (enrolments.error) throw enrolments.error;
  if (progress.error) throw progress.error;
  return { enrolments: (enrolments.data ?? []) as StudentRow[], progress: progress.data ?? [] };
}

export interface OrderRow {
  order_id: number;
  checkout_session_id: string;
  payment_intent_id: string | null;
  product_key: string;
  amount_total: number;
  currency: string;
  status: string;
  created_at: string;
  status_changed_at: string | null;
  full_name: string | null;
  email: string | null;
  dispute_status: string | null;
  dispute_reason: string | null;
}

const ORDER_COLUMNS =
  "order_id, checkout_session_id, payment_intent_id, product_key, amount_total, currency, status, created_at, status_changed_at, full_name, email, dispute_status, dispute_reason";

/** An order's status, as `stripe_orders.status` has it. */
export type OrderStatus = "pending" | "completed" | "disputed" | "canceled" | "refunded" | "failed";

export interface OrderQuery {
  page: number;
  status: OrderStatus | "";
  userId?: string;
}

export async function fetchOrders(q: OrderQuery): Promise<Page<OrderRow>> {
  const { from, to } = pageRange(q.page);
  let query = supabase
    .from("desk_orders")
    .select(ORDER_COLUMNS, { count: "exact" })
    .order("created_at", { ascending: false })
    .order("order_id");
  if (q.status) query = query.eq("status", q.status);
  if (q.userId) query = query.eq("user_id", q.userId);
  const { data, error, count } = await query.range(from, to);
  if (error) throw error;
  return { rows: (data ?? []) as OrderRow[], total: count ?? 0 };
}

export interface HeldPayment {
  event_id: string;
  checkout_session_id: string;
  email: string | null;
  product_key: string;
  amount_total: number | null;
  currency: string | null;
  reason: string;
  created_at: string;
  resolved_at: string | null;
}

/** Payments held for review and not settled, newest first. */
export async function fetchHeldPayments(): Promise<HeldPayment[]> {
  const { data, error } = await supabase
    .from("stripe_payment_reviews")
    .select(
      "event_id, checkout_session_id, email, product_key, amount_total, currency, reason, created_at, resolved_at",
    )
    .is("resolved_at", null)
    .order("created_at", { ascending: false })
    .limit(50);
  if (error) throw error;
  return (data ?? []) as HeldPayment[];
}

export interface MonthTotal {
  product_key: string;
  status: string;
  orders: number;
  amount: number;
  currency: string;
}

/** The orders of one month (`YYYY-MM`, in the business's time zone), per program and status. */
export async function fetchMonthTotals(month: string): Promise<MonthTotal[]> {
  const { data, error } = await supabase
    .from("desk_order_totals")
    .select("product_key, status, orders, amount, currency")
    .eq("month", `${month}-01`)
    .order("product_key");
  if (error) throw error;
  return (data ?? []) as MonthTotal[];
}

/** Reads every row `page` yields, MAX_ROWS at a time, until a short page. */
async function readAll<T>(
  page: (from: number, to: number) => PromiseLike<{ data: unknown[] | null; error: unknown }>,
): Promise<T[]> {
  const rows: T[] = [];
  for (let from = 0; ; from += MAX_ROWS) {
    const { data, error } = await page(from, from + MAX_ROWS - 1);
    if (error) throw error;
    rows.push(...((data ?? []) as T[]));
    if (!data || data.length < MAX_ROWS) return rows;
  }
}
