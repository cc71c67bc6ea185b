// The backend part of `npm run bench`: the local stack (local/) on PGlite and on a throw-away
// PostgreSQL server, started by the tests' harness (local/harness.ts), measured with the real supabase-js over HTTP:
//   - sign-in + portal round trip: a new client signs in as the demo customer, then makes the
//     portal's calls (get user, then the order view newest first and the profile together);
//   - authenticated select: one signed-in client selecting its orders, 8 requests in flight,
//     for a fixed time: requests per second and latency.
// Every answer is checked, so an error can never pass for a fast request: a wrong round trip
// stops that backend's run, and any failed select marks the backend failed (its numbers are kept).
import { formatTable } from "./format.mjs";

/** What the seeded demo customer (supabase/seed.sql) must get back from the portal's calls. */
export const EXPECTED = { orders: 2, fullName: "Dana Whitaker" };

/** The p-th percentile (0-100) of `values` by nearest rank; null for no values. */
export function percentile(values, p) {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

const round = (value, digits = 1) => (value === null ? null : Number(value.toFixed(digits)));

/** Median, p95, min and max of latencies in ms. */
export function summarize(samples) {
  return {
    n: samples.length,
    medianMs: round(percentile(samples, 50)),
    p95Ms: round(percentile(samples, 95)),
    minMs: round(samples.length ? Math.min(...samples) : null),
    maxMs: round(samples.length ? Math.max(...samples) : null),
  };
}

/** Requests per second over a run, counting only the answers that succeeded. */
export function throughput({ ok, errors, seconds }) {
  return {
    requests: ok + errors,
    errors,
    seconds: round(seconds, 2),
    perSecond: seconds > 0 ? round(ok / seconds) : null,
  };
}

/**
 * What is wrong with the portal's answers for the demo customer, or null when they are right:
 * `user`, `orders` and `profile` are supabase-js results ({ data, error, status }).
 */
export function portalProblem({ user, orders, profile }, { email, orders: count, fullName } = {}) {
  if (user.error) return `get user: ${user.error.message}`;
  if (user.data?.user?.email !== email) return `get user: expected ${email}, got ${user.data?.user?.email}`;
  if (orders.error) return `orders: ${orders.status} ${orders.error.message}`;
  if (orders.data?.length !== count) return `orders: expected ${count} rows, got ${orders.data?.length}`;
  const dates = orders.data.map((o) => Date.parse(o.order_date));
  if (dates.some((date, i) => Number.isNaN(date) || (i > 0 && date > dates[i - 1])))
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
export function selectProblem(result, count) {
  if (result.thrown) return `threw ${result.thrown.message ?? result.thrown}`;
  const { status, error, data } = result;
  if (error || status < 200 || status > 299) return `${status} ${error?.message ?? "error"}`.trim();
  if (!Array.isArray(data) || data.length !== count) return `${status} but ${data?.length ?? "no"} rows`;
  return null;
}

/** Tallies select outcomes: ok, errors, answers per HTTP status, the first few distinct problems. */
export function tallySelects(outcomes) {
  const tally = { ok: 0, errors: 0, statuses: {}, problems: [] };
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
export function backendResult({ backend, trips, load, concurrency }) {
  const select = {
    concurrency,
    ...throughput({ ok: load.ok, errors: load.errors, seconds: load.seconds }),
    latency: summarize(load.latencies),
    statuses: load.statuses,
  };
  const result = { backend, roundTrip: summarize(trips), select };
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
export function startProblem(backend, error) {
  const message = error?.message ?? String(error);
  return /binaries not found/i.test(message) || error?.code === "ENOENT"
    ? { backend, skipped: message }
    : { backend, error: `could not start: ${message}` };
}

/** True when a backend failed (skipped ones do not count). */
export const backendFailed = (results) => results.some((r) => r.error);

/** A message on one table line. */
const oneLine = (text) => String(text).trim().replace(/\s*\n\s*/g, " | ");

export function backendTable(results) {
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
      !r.roundTrip
        ? { backend: r.backend, note: r.skipped ? `skipped: ${oneLine(r.skipped)}` : `FAILED: ${oneLine(r.error)}` }
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

/** A new client signed in as the demo customer. */
async function signedIn(createClient, stack, demo) {
  const client = createClient(stack.url, stack.anonKey, clientOptions);
  const { error } = await client.auth.signInWithPassword(demo);
  if (error) throw new Error(`sign-in failed: ${error.message}${error.status ? ` (${error.status})` : ""}`);
  return client;
}

/** Signs in as the demo customer and makes the portal's calls; returns the elapsed ms. */
async function roundTrip(createClient, stack, demo) {
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
async function loadSelect(client, { seconds, concurrency }) {
  const latencies = [];
  const outcomes = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        let result;
        try {
          result = await client.from("stripe_user_orders").select("*");
        } catch (thrown) {
          result = { thrown };
        }
        latencies.push(performance.now() - t);
        outcomes.push({ status: result.status, problem: selectProblem(result, EXPECTED.orders) });
      }
    }),
  );
  return { latencies, ...tallySelects(outcomes), seconds: (performance.now() - started) / 1000 };
}

/**
 * Runs both backends. Options: rounds (measured sign-in round trips), warmup, seconds and
 * concurrency of the select load, log.
 */
export async function runBackendBench({ rounds = 20, warmup = 3, seconds = 3, concurrency = 8, log = () => {} } = {}) {
  const { DEMO_USER } = await import("../../local/stack.ts");
  const { createClient } = await import("@supabase/supabase-js");
  const demo = { email: DEMO_USER.email, password: DEMO_USER.password };
  // The bench signs in far more often than one client would: no rate limits.
  const unlimited = { tokenRefresh: 1e9, signInSignUps: 1e9, tokenVerifications: 1e9 };
  return forEachBackend({ seed: true, config: { auth: { rateLimit: unlimited } } }, async (backend, stack) => {
    log(`  ${backend}: ${warmup} + ${rounds} sign-in round trips…`);
    for (let i = 0; i < warmup; i++) await roundTrip(createClient, stack, demo);
    const trips = [];
    for (let i = 0; i < rounds; i++) trips.push(await roundTrip(createClient, stack, demo));

    log(`  ${backend}: ${seconds} s of selects, ${concurrency} in flight…`);
    const client = await signedIn(createClient, stack, demo);
    await loadSelect(client, { seconds: 0.5, concurrency });
    const load = await loadSelect(client, { seconds, concurrency });
    return backendResult({ backend, trips, load, concurrency });
  });
}

/**
 * The Resend stand-in's rate limit for the benches that buy: Resend allows an account 10 requests a
 * second unless it asks for more, which would make a burst of buyers measure that quota rather
 * than our code (the quota is the business's to raise: docs/performance.md).
 */
export const MAIL_UNLIMITED = { rateLimit: 1_000_000 };

/**
 * Starts the local stack on each backend in turn (PGlite, then a throw-away PostgreSQL server)
 * with `options` and runs `measure(backend, stack)`, whose result is that backend's. A stack that
 * cannot start is reported as skipped or failed (`startProblem`), an error as `{ backend, error }`.
 * The stack, the server and their temporary folders are removed afterwards, on errors and on
 * Ctrl-C.
 */
export async function forEachBackend(options, measure) {
  const { BACKENDS, startTestStack } = await import("../../local/harness.ts");
  const results = [];
  for (const { name: backend } of BACKENDS) {
    let stack;
    // Ctrl-C or a kill mid-run: stop the PostgreSQL server (pg_ctl detaches it, so it would
    // outlive us) and remove the temp folder, then die of the signal as usual.
    const onSignal = (signal) => {
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
      results.push({ backend, error: error.message });
    } finally {
      await stack?.stop().catch((error) => console.error(`  cleanup: ${error.message}`));
      process.removeListener("SIGINT", onSignal);
      process.removeListener("SIGTERM", onSignal);
    }
  }
  return results;
}
