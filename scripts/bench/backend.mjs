// The backend part of `npm run bench`: the local stack (local/) on PGlite and on a throw-away
// PostgreSQL server, measured with the real supabase-js over HTTP:
//   - sign-in + portal round trip: a new client signs in as the demo customer, then makes the
//     portal's calls (get user, the order view newest first, the profile);
//   - authenticated select: one signed-in client selecting its orders, 8 requests in flight,
//     for a fixed time: requests per second and latency.
// Every answer is checked, so an error can never pass for a fast request.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatTable } from "./format.mjs";

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
  return { requests: ok + errors, errors, seconds: round(seconds, 2), perSecond: seconds > 0 ? round(ok / seconds) : null };
}

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
      r.skipped || r.error
        ? { backend: r.backend, note: r.skipped ? `skipped: ${r.skipped}` : `FAILED: ${r.error}` }
        : {
            backend: r.backend,
            roundMedian: r.roundTrip.medianMs,
            roundP95: r.roundTrip.p95Ms,
            perSecond: r.select.perSecond,
            selectMedian: r.select.latency.medianMs,
            selectP95: r.select.latency.p95Ms,
            errors: r.select.errors,
            note: `${r.roundTrip.n} round trips; ${r.select.requests} selects in ${r.select.seconds} s, ${r.select.concurrency} in flight`,
          },
    ),
  );
}

/** Signs in as the demo customer and makes the portal's calls; returns the elapsed ms. */
async function roundTrip(createClient, stack, demo) {
  const started = performance.now();
  const client = createClient(stack.url, stack.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
  const signIn = await client.auth.signInWithPassword(demo);
  if (signIn.error) throw new Error(`sign-in failed: ${signIn.error.message}`);
  const { data: user, error: userError } = await client.auth.getUser();
  if (userError) throw new Error(`get user failed: ${userError.message}`);
  const [orders, profile] = await Promise.all([
    client.from("stripe_user_orders").select("*").order("order_date", { ascending: false }),
    client.from("profiles").select("*").eq("id", user.user.id).maybeSingle(),
  ]);
  if (orders.error || orders.data.length !== 2) throw new Error(`portal orders wrong: ${orders.error?.message ?? orders.data.length}`);
  if (profile.error || profile.data?.full_name !== "Dana Whitaker") throw new Error("portal profile wrong");
  return performance.now() - started;
}

/** Keeps `concurrency` selects in flight for `seconds`; answers latencies and counts. */
async function loadSelect(client, { seconds, concurrency }) {
  const latencies = [];
  let ok = 0;
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const { data, error } = await client.from("stripe_user_orders").select("*");
        latencies.push(performance.now() - t);
        if (error || data.length !== 2) errors++;
        else ok++;
      }
    }),
  );
  return { latencies, ok, errors, elapsed: (performance.now() - started) / 1000 };
}

/**
 * Runs both backends. Options: rounds (measured sign-in round trips), warmup, seconds and
 * concurrency of the select load, log.
 */
export async function runBackendBench({ rounds = 20, warmup = 3, seconds = 3, concurrency = 8, log = () => {} } = {}) {
  const { startStack, DEMO_USER } = await import("../../local/stack.ts");
  const { startPostgres } = await import("../../local/postgres-server.ts");
  const { createClient } = await import("@supabase/supabase-js");
  const results = [];
  for (const backend of ["PGlite", "PostgreSQL"]) {
    let server;
    if (backend === "PostgreSQL") {
      try {
        server = startPostgres();
      } catch (error) {
        results.push({ backend, skipped: error.message });
        continue;
      }
    }
    const dataDir = mkdtempSync(join(tmpdir(), "bench-stack-"));
    let stack;
    try {
      stack = await startStack({
        dataDir,
        databaseUrl: server?.url,
        config: { rateLimits: { signInPerWindow: 1_000_000, signInWindowSeconds: 1, recoverWindowSeconds: 1 } },
      });
      log(`  ${backend}: ${warmup} + ${rounds} sign-in round trips…`);
      const demo = { email: DEMO_USER.email, password: DEMO_USER.password };
      for (let i = 0; i < warmup; i++) await roundTrip(createClient, stack, demo);
      const trips = [];
      for (let i = 0; i < rounds; i++) trips.push(await roundTrip(createClient, stack, demo));

      log(`  ${backend}: ${seconds} s of selects, ${concurrency} in flight…`);
      const client = createClient(stack.url, stack.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
      await client.auth.signInWithPassword(demo);
      await loadSelect(client, { seconds: 0.5, concurrency });
      const load = await loadSelect(client, { seconds, concurrency });
      results.push({
        backend,
        roundTrip: summarize(trips),
        select: {
          concurrency,
          ...throughput({ ok: load.ok, errors: load.errors, seconds: load.elapsed }),
          latency: summarize(load.latencies),
        },
      });
    } catch (error) {
      results.push({ backend, error: error.message });
    } finally {
      await stack?.close();
      server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return results;
}
