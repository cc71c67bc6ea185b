// The backend part of `npm run bench`: the local stack (packages/local-stack/) on PGlite and on a
// throw-away PostgreSQL server, started by the tests' harness
// (packages/local-stack/src/harness.ts), measured with the real supabase-js over HTTP:
//   - sign-in + portal round trip: a new client signs in as the demo customer, then makes the
//     portal's calls (get user, then the order view newest first and the profile together);
//   - authenticated select: one signed-in client selecting its orders, 8 requests in flight,
//     for a fixed time: requests per second and latency.
// Every answer is checked, so an error can never pass for a fast request: a wrong round trip
// stops that backend's run, and any failed select marks the backend failed (its numbers are kept).
import type { createClient as CreateClient, SupabaseClient } from "@supabase/supabase-js";
import type { Backend, StackOptions, TestStack } from "@advisor-accelerator/local-stack";
import { messageOf } from "./errors.ts";
import { formatTable } from "./format.ts";

/** What the seeded demo customer (supabase/seed.sql) must get back from the portal's calls. */
export const EXPECTED = { orders: 2, fullName: "Dana Whitaker" };

/** Median, p95, min and max of latencies in ms; null without samples. */
export interface LatencySummary {
  n: number;
  medianMs: number | null;
  p95Ms: number | null;
  minMs: number | null;
  maxMs: number | null;
}

/** A run of authenticated selects: its rate, its latencies, its answers by HTTP status. */
export interface SelectStats {
  concurrency: number;
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number | null;
  latency: LatencySummary;
  statuses: Record<string, number>;
  /** The first few distinct problems, when a select failed. */
  problems?: string[];
}

/** One backend measured; `error` when any select failed (its numbers are kept). */
export interface BackendMeasured {
  backend: string;
  roundTrip: LatencySummary;
  select: SelectStats;
  error?: string;
}

/** A backend whose server binaries are missing. */
export interface BackendSkipped {
  backend: string;
  skipped: string;
}

/** A backend that could not start, or whose run broke. */
export interface BackendBroken {
  backend: string;
  error: string;
}

/** What each backend's run answers: its measurement, or why there is none. */
export type BackendOutcome<R> = R | BackendSkipped | BackendBroken;

export type BackendResult = BackendOutcome<BackendMeasured>;

/** The name of a backend the harness starts (packages/local-stack/src/harness.ts BACKENDS). */
export type BackendName = Backend["name"];

/** The p-th percentile (0-100) of `values` by nearest rank; null for no values. */
export function percentile(values: readonly number[], p: number): number | null {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? null;
}

function round(value: number, digits?: number): number;
function round(value: number | null, digits?: number): number | null;
function round(value: number | null, digits = 1): number | null {
  return value === null ? null : Number(value.toFixed(digits));
}

/** Median, p95, min and max of latencies in ms. */
export function summarize(samples: readonly number[]): LatencySummary {
  return {
    n: samples.length,
    medianMs: round(percentile(samples, 50)),
    p95Ms: round(percentile(samples, 95)),
    minMs: round(samples.length ? Math.min(...samples) : null),
    maxMs: round(samples.length ? Math.max(...samples) : null),
  };
}

/** Requests per second over a run, counting only the answers that succeeded. */
export function throughput({ ok, errors, seconds }: { ok: number; errors: number; seconds: number }) {
  return {
    requests: ok + errors,
    errors,
    seconds: round(seconds, 2),
    perSecond: seconds > 0 ? round(ok / seconds) : null,
  };
}

interface Failure {
  message: string;
}

/** The portal's calls as supabase-js answers them ({ data, error, status }). */
export interface PortalAnswers {
  user: { data: { user: { email?: string } | null } | null; error: Failure | null };
  orders: { status: number; error: Failure | null; data: readonly { order_date: string }[] | null };
  profile: { status?: number; error: Failure | null; data: { full_name: string | null } | null };
}

/** What is wrong with the portal's answers for the demo customer, or null when they are right. */
export function portalProblem(
  { user, orders, profile }: PortalAnswers,
  { email, orders: count, fullName }: { email: string; orders: number; fullName: string },
): string | null {
  if (user.error) return `get user: ${user.error.message}`;
  if (user.data?.user?.email !== email) return `get user: expected ${email}, got ${user.data?.user?.email}`;
  if (orders.error) return `orders: ${orders.status} ${orders.error.message}`;
  if (orders.data?.length !== count) return `orders: expected ${count} rows, got ${orders.data?.length}`;
  const dates = orders.data.map((o) => Date.parse(o.order_date));
  // Each no later than the one before it (the first has none).
  if (dates.some((date, i) => Number.isNaN(date) || date > (dates[i - 1] ?? Infinity)))
    return "orders: not newest first by order_date";
  if (profile.error) return `profile: ${profile.status} ${profile.error.message}`;
  if (profile.data?.full_name !== fullName)
    return `profile: expected full_name ${fullName}, got ${profile.data ? profile.data.full_name : "no row"}`;
  return null;
}

/**
 * Null when a select of the orders answered 2xx with the expected rows; otherwise a short
 * description ("501 Not implemented", "200 but 0 rows", "threw fetch failed").
 */
export function selectProblem(
  result: { thrown: unknown } | { status: number; error: Failure | null; data: unknown },
  count: number,
): string | null {
  if ("thrown" in result) return `threw ${messageOf(result.thrown)}`;
  const { status, error, data } = result;
  if (error || status < 200 || status > 299) return `${status} ${error?.message ?? "error"}`.trim();
  if (!Array.isArray(data) || data.length !== count)
    return `${status} but ${Array.isArray(data) ? data.length : "no"} rows`;
  return null;
}

/** The selects' outcomes, counted; see tallySelects. */
export interface SelectTally {
  ok: number;
  errors: number;
  statuses: Record<string, number>;
  problems: string[];
}

/** Tallies select outcomes: ok, errors, answers per HTTP status, the first few distinct problems. */
export function tallySelects(
  outcomes: readonly { status: number | undefined; problem: string | null }[],
): SelectTally {
  const tally: SelectTally = { ok: 0, errors: 0, statuses: {}, problems: [] };
  for (const { status, problem } of outcomes) {
    const key = String(status ?? "none");
    tally.statuses[key] = (tally.statuses[key] ?? 0) + 1;
    if (problem === null) tally.ok++;
    else {
      tally.errors++;
      if (tally.problems.length < 3 && !tally.problems.includes(problem)) tally.problems.push(problem);
    }
  }
  return tally;
}

/**
 * One backend's entry in the report (and bench/latest.json): round-trip latencies, the select
 * run, and `error` when any select failed.
 */
export function backendResult({
  backend,
  trips,
  load,
  concurrency,
}: {
  backend: string;
  trips: readonly number[];
  load: SelectTally & { latencies: readonly number[]; seconds: number };
  concurrency: number;
}): BackendMeasured {
  const select: SelectStats = {
    concurrency,
    ...throughput({ ok: load.ok, errors: load.errors, seconds: load.seconds }),
    latency: summarize(load.latencies),
    statuses: load.statuses,
  };
  const result: BackendMeasured = { backend, roundTrip: summarize(trips), select };
  if (load.errors) {
    select.problems = load.problems;
    result.error = `${load.errors} of ${select.requests} selects failed (${load.problems.join("; ")})`;
  }
  return result;
}

/**
 * A backend that could not start: skipped when its server binaries are missing (none found, or a
 * program to run is absent), failed otherwise.
 */
export function startProblem(backend: string, error: unknown): BackendSkipped | BackendBroken {
  const message = messageOf(error);
  const missing = error instanceof Error && "code" in error && error.code === "ENOENT";
  return /binaries not found/i.test(message) || missing
    ? { backend, skipped: message }
    : { backend, error: `could not start: ${message}` };
}

/** True when a backend failed (skipped ones do not count). */
export const backendFailed = (results: readonly { backend: string; error?: string }[]): boolean =>
  results.some((r) => r.error);

/** A message on one table line. */
const oneLine = (text: string) => text.trim().replace(/\s*\n\s*/g, " | ");

/** What the table shows of a measured backend. */
type MeasuredRow = {
  backend: string;
  roundTrip: Pick<LatencySummary, "n" | "medianMs" | "p95Ms">;
  select: Pick<SelectStats, "concurrency" | "requests" | "errors" | "seconds" | "perSecond"> & {
    latency: Pick<LatencySummary, "medianMs" | "p95Ms">;
  };
  error?: string;
};

export function backendTable(results: readonly BackendOutcome<MeasuredRow>[]): string {
  return formatTable(
    [
      { key: "backend", title: "backend" },
      { key: "roundMedian", title: "sign-in+portal median ms" },
      { key: "roundP95", title: "p95 ms" },
      { key: "perSecond", title: "select req/s" },
      { key: "selectMedian", title: "select median ms" },
      { key: "selectP95", title: "p95 ms" },
      { key: "errors", title: "errors" },
      { key: "note", title: "note", align: "left" },
    ],
    results.map((r) =>
      !("roundTrip" in r)
        ? { backend: r.backend, note: "skipped" in r ? `skipped: ${oneLine(r.skipped)}` : `FAILED: ${oneLine(r.error)}` }
        : {
            backend: r.backend,
            roundMedian: r.roundTrip.medianMs,
            roundP95: r.roundTrip.p95Ms,
            perSecond: r.select.perSecond,
            selectMedian: r.select.latency.medianMs,
            selectP95: r.select.latency.p95Ms,
            errors: r.select.errors,
            note: r.error
              ? `FAILED: ${oneLine(r.error)}`
              : `${r.roundTrip.n} round trips; ${r.select.requests} selects in ${r.select.seconds} s, ${r.select.concurrency} in flight`,
          },
    ),
  );
}

const clientOptions = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };

type Demo = { email: string; password: string };

/** A new client signed in as the demo customer. */
async function signedIn(createClient: typeof CreateClient, stack: TestStack, demo: Demo): Promise<SupabaseClient> {
  const client = createClient(stack.url, stack.anonKey, clientOptions);
  const { error } = await client.auth.signInWithPassword(demo);
  if (error) throw new Error(`sign-in failed: ${error.message}${error.status ? ` (${error.status})` : ""}`);
  return client;
}

/** Signs in as the demo customer and makes the portal's calls; returns the elapsed ms. */
async function roundTrip(createClient: typeof CreateClient, stack: TestStack, demo: Demo): Promise<number> {
  const started = performance.now();
  const client = await signedIn(createClient, stack, demo);
  const user = await client.auth.getUser();
  const [orders, profile] = await Promise.all([
    client.from("stripe_user_orders").select("*").order("order_date", { ascending: false }),
    user.data?.user
      ? client.from("profiles").select("*").eq("id", user.data.user.id).maybeSingle()
      : { data: null, error: null },
  ]);
  const elapsed = performance.now() - started;
  const problem = portalProblem({ user, orders, profile }, { email: demo.email, ...EXPECTED });
  if (problem) throw new Error(`portal round trip wrong: ${problem}`);
  return elapsed;
}

/** Keeps `concurrency` selects in flight for `seconds`; answers latencies and the tally. */
async function loadSelect(client: SupabaseClient, { seconds, concurrency }: { seconds: number; concurrency: number }) {
  const latencies: number[] = [];
  const outcomes: { status: number | undefined; problem: string | null }[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        let result: Parameters<typeof selectProblem>[0];
        try {
          result = await client.from("stripe_user_orders").select("*");
        } catch (thrown) {
          result = { thrown };
        }
        latencies.push(performance.now() - t);
        outcomes.push({
          status: "thrown" in result ? undefined : result.status,
          problem: selectProblem(result, EXPECTED.orders),
        });
      }
    }),
  );
  return { latencies, ...tallySelects(outcomes), seconds: (performance.now() - started) / 1000 };
}

/**
 * Runs both backends. Options: rounds (measured sign-in round trips), warmup, seconds and
 * concurrency of the select load, log.
 */
export async function runBackendBench({
  rounds = 20,
  warmup = 3,
  seconds = 3,
  concurrency = 8,
  log = () => {},
}: {
  rounds?: number;
  warmup?: number;
  seconds?: number;
  concurrency?: number;
  log?: (line: string) => void;
} = {}): Promise<BackendResult[]> {
  const { DEMO_USER } = await import("@advisor-accelerator/local-stack");
  const { createClient } = await import("@supabase/supabase-js");
  const demo = { email: DEMO_USER.email, password: DEMO_USER.password };
  // The bench signs in far more often than one client would: no rate limits.
  const unlimited = { tokenRefresh: 1e9, signInSignUps: 1e9, tokenVerifications: 1e9 };
  return forEachBackend({ seed: true, config: { auth: { rateLimit: unlimited } } }, async (backend, stack) => {
    log(`  ${backend}: ${warmup} + ${rounds} sign-in round trips…`);
    for (let i = 0; i < warmup; i++) await roundTrip(createClient, stack, demo);
    const trips: number[] = [];
    for (let i = 0; i < rounds; i++) trips.push(await roundTrip(createClient, stack, demo));

    log(`  ${backend}: ${seconds} s of selects, ${concurrency} in flight…`);
    const client = await signedIn(createClient, stack, demo);
    await loadSelect(client, { seconds: 0.5, concurrency });
    const load = await loadSelect(client, { seconds, concurrency });
    return backendResult({ backend, trips, load, concurrency });
  });
}

/**
 * The stack the benches that buy run on (tools/bench/commerce.ts, launch.ts): no seed, and two
 * limits raised. The Resend stand-in's: Resend allows an account 10 requests a second unless it
 * asks for more, which would make a burst of buyers measure that quota rather than our code (the
 * quota is the business's to raise: docs/performance.md). And the functions' flood limits per
 * address and for everyone (functions/_shared/rate-limit.ts): every one of the benches' buyers
 * comes from 127.0.0.1, where production's would come from many addresses; the checks still run,
 * database round trips included, so their cost is measured.
 */
export const BUYING_STACK: StackOptions = {
  seed: false,
  resend: { rateLimit: 1_000_000 },
  secrets: { RATE_LIMIT_SCALE: "1000" },
};

/**
 * Starts the local stack on each backend in turn (PGlite, then a throw-away PostgreSQL server)
 * with `options` and runs `measure(backend, stack)`, whose result is that backend's. A stack that
 * cannot start is reported as skipped or failed (`startProblem`), an error as `{ backend, error }`.
 * The stack, the server and their temporary folders are removed afterwards, on errors and on
 * Ctrl-C.
 */
export async function forEachBackend<R>(
  options: StackOptions,
  measure: (backend: BackendName, stack: TestStack) => Promise<R>,
): Promise<BackendOutcome<R>[]> {
  const { BACKENDS, startTestStack } = await import("@advisor-accelerator/local-stack");
  const results: BackendOutcome<R>[] = [];
  for (const { name: backend } of BACKENDS) {
    let stack: TestStack | undefined;
    // Ctrl-C or a kill mid-run: stop the PostgreSQL server (pg_ctl detaches it, so it would
    // outlive us) and remove the temp folder, then die of the signal as usual.
    const onSignal = (signal: NodeJS.Signals) => {
      stack?.stopSync();
      process.kill(process.pid, signal);
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
      try {
        stack = await startTestStack({ name: backend }, options);
      } catch (error) {
        results.push(startProblem(backend, error));
        continue;
      }
      results.push(await measure(backend, stack));
    } catch (error) {
      results.push({ backend, error: messageOf(error) });
    } finally {
      await stack?.stop().catch((error: unknown) => console.error(`  cleanup: ${messageOf(error)}`));
      process.removeListener("SIGINT", onSignal);
      process.removeListener("SIGTERM", onSignal);
    }
  }
  return results;
}
