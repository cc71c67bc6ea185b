/** The portal time-to-data bench's pure parts: throttling, request tallies, data check, median, budget, table. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUDGETS, checkBudgets, checkPortal, exitCode } from "../../tools/bench/budgets.ts";
import { portalLine, portalTable } from "../../tools/bench/format.ts";
import {
  dataProblem,
  networkConditions,
  portalResult,
  preflightDelayingProxy,
  requestTimeline,
  tallyRequests,
} from "../../tools/bench/portal.ts";

const API = "http://localhost:54321";
const SITE = "http://127.0.0.1:4000";
type Req = {
  url: string;
  type: string;
  mimeType?: string | null;
  status: number | null;
  sentAt: number;
  finishedAt: number | null;
  bytes: number;
};
const req = (
  url: string,
  type: string,
  sentAt: number,
  finishedAt: number | null,
  bytes: number,
  status = 200,
): Req => ({
  url,
  type,
  mimeType: type === "Script" ? "text/javascript" : null,
  status,
  sentAt,
  finishedAt,
  bytes,
});
const ORDERS = `${API}/rest/v1/stripe_user_orders?select=*&order=order_date.desc`;
const PROFILE = `${API}/rest/v1/profiles?select=*&id=eq.u1`;
// A load: the page at 0, two scripts, the data with its preflights, the mark at 1000, a late chunk.
const load = (overrides: Partial<Record<"orders" | "profile", Partial<Req>>> = {}) => [
  req(`${SITE}/portal`, "Document", 0, 150, 5000),
  req(`${SITE}/_astro/client.js`, "Script", 160, 500, 60_000),
  req(`${SITE}/_astro/Dashboard.js`, "Script", 170, 600, 20_000),
  req(ORDERS, "Preflight", 610, 760, 0, 204),
  req(PROFILE, "Preflight", 611, 761, 0, 204),
  { ...req(ORDERS, "Fetch", 605, 920, 1200), ...overrides.orders },
  { ...req(PROFILE, "Fetch", 606, 930, 800), ...overrides.profile },
  req(`${SITE}/_astro/later.js`, "Script", 1200, 1500, 4000),
];

const run = (ms: number, extra: Record<string, unknown> = {}) => ({
  ms,
  requests: 6,
  preflights: 2,
  jsBytes: 84_000,
  jsBytesBeforeMark: 80_000,
  bytes: 90_000,
  ...extra,
});

describe("portal bench", () => {
  it("turns Lighthouse's mobile throttling into CDP's network conditions (bytes per second)", () => {
    expect(networkConditions()).toEqual({
      offline: false,
      latency: 150,
      downloadThroughput: 209_715.2,
      uploadThroughput: 96_000,
    });
  });

  it("counts the requests started before the mark, preflights apart, and the JavaScript transferred", () => {
    expect(tallyRequests(load(), 1000)).toEqual({
      requests: 5,
      preflights: 2,
      jsBytes: 84_000,
      jsBytesBeforeMark: 80_000,
      bytes: 91_000,
    });
    // A script still loading at the mark counts in all, not by the mark; bytes of a failed one are 0.
    const loading = [...load(), req(`${SITE}/_astro/slow.js`, "Script", 900, null, 0)];
    expect(tallyRequests(loading, 1000)).toMatchObject({ requests: 6, jsBytes: 84_000, jsBytesBeforeMark: 80_000 });
    // A module preload is reported as type Other with a JavaScript MIME type: still JavaScript.
    const preload = { ...req(`${SITE}/_astro/chunk.js`, "Other", 165, 400, 3000), mimeType: "text/javascript" };
    expect(tallyRequests([...load(), preload], 1000).jsBytesBeforeMark).toBe(83_000);
  });

  it("lists the requests before the mark, in order, relative to the navigation", () => {
    // The navigation started 50 ms before the first request's clock reading; the mark at 925.
    const list = requestTimeline([...load()].reverse(), -50, 925);
    expect(list.map((r) => `${r.start}-${r.end} ${r.type} ${r.url}`)).toEqual([
      `50-200 Document ${SITE}/portal`,
      `210-550 Script ${SITE}/_astro/client.js`,
      `220-650 Script ${SITE}/_astro/Dashboard.js`,
      `655-970 Fetch ${API}/rest/v1/stripe_user_orders`,
      `656-null Fetch ${API}/rest/v1/profiles`,
      `660-810 Preflight ${API}/rest/v1/stripe_user_orders`,
      `661-811 Preflight ${API}/rest/v1/profiles`,
    ]);
    expect(list[0]).toEqual({ start: 50, end: 200, type: "Document", status: 200, bytes: 5000, url: `${SITE}/portal` });
  });

  it("accepts a mark only after the orders and the profile answered 2xx", () => {
    expect(dataProblem(load(), 1000)).toBeNull();
    expect(dataProblem(load(), 925)).toBe("profile answered after the mark");
    expect(dataProblem(load({ orders: { status: 401 } }), 1000)).toBe("orders: 401");
    expect(dataProblem(load({ profile: { status: null, finishedAt: null } }), 1000)).toBe("profile: no answer");
    expect(
      dataProblem(
        load().filter((r) => !r.url.startsWith(ORDERS)),
        1000,
      ),
    ).toBe("no orders request (/rest/v1/stripe_user_orders) before the mark");
  });

  it("reports the median of the runs that succeeded, with the figures of that run", () => {
    const result = portalResult([
      run(2400, { requests: 9 }),
      run(1800, { requests: 7 }),
      { error: "no mark" },
      run(2100),
    ]);
    expect(result).toMatchObject({
      path: "/portal",
      runs: 4,
      failedRuns: 1,
      medianMs: 2100,
      requests: 6,
      preflights: 2,
    });
    expect(portalResult([run(1200), run(1000)]).medianMs).toBe(1000);
    expect(portalResult([{ error: "sign-in failed: 400" }])).toMatchObject({
      medianMs: null,
      error: "sign-in failed: 400",
    });
  });

  it("warns over the budget, fails when the portal could not be measured, warns when there is none", () => {
    expect(BUDGETS.portalTimeToDataMs).toBe(1500);
    const fast = checkPortal(portalResult([run(1100), run(1300), run(1500)]));
    expect(fast).toEqual([
      expect.objectContaining({ id: "portal-time-to-data", status: "PASS", detail: "1300 ms, median of 3 run(s)" }),
    ]);
    const slow = checkPortal(portalResult([run(4300), run(4100), run(4500)]));
    expect(slow[0]).toMatchObject({ status: "WARN", hard: false, offenders: ["/portal 4300 ms"] });
    expect(exitCode(slow)).toBe(0);
    const partly = checkPortal(portalResult([run(1400), { error: "no mark" }]));
    expect(partly[0]).toMatchObject({ status: "WARN", offenders: ["a run failed: no mark"] });

    const broken = checkPortal(portalResult([{ error: "no mark within 30 s" }]));
    expect(broken).toEqual([
      expect.objectContaining({ id: "portal-measured", status: "FAIL", offenders: ["no mark within 30 s"] }),
    ]);
    expect(exitCode(broken)).toBe(1);
    const none = checkPortal({ path: "/portal", skipped: "no portal page yet (src/pages/portal)" });
    expect(none[0]).toMatchObject({ status: "WARN", offenders: ["no portal page yet (src/pages/portal)"] });
  });

  it("adds the portal to the bench's budgets only when it ran", () => {
    expect(checkBudgets({ pages: [] }).some((r) => r.id.startsWith("portal"))).toBe(false);
    const portal = portalResult([run(3000)]);
    expect(checkBudgets({ pages: [], portal }).find((r) => r.id === "portal-time-to-data")?.status).toBe("WARN");
  });

  it("prints the runs and a one-line summary", () => {
    const portal = portalResult([run(2400, { jsBytes: 130 * 1024 }), run(1800), { error: "no mark" }]);
    expect(portalTable(portal).split("\n")).toEqual([
      "run  time-to-data ms  requests  preflights  JS KB gz  by the mark  all KB  note",
      "---  ---------------  --------  ----------  --------  -----------  ------  ---------------",
      "  1             2400         6           2     130.0         78.1    87.9",
      "  2             1800         6           2      82.0         78.1    87.9  median",
      "  3                -         -           -         -            -       -  failed: no mark",
    ]);
    expect(portalLine(portal, 2500)).toBe(
      "/portal: 1800 ms to data, median of 2 run(s) (budget 2500 ms); that run: 6 requests and 2 preflights " +
        "before the mark, 82.0 KB of JS transferred (78.1 KB by the mark)",
    );
    expect(portalLine({ ...portal, loadAverage: { before: 1.2, after: 2.5, cores: 2 } }, 2500)).toMatch(
      /\(78\.1 KB by the mark\); load average 1\.2 then 2\.5 on 2 cores$/,
    );
    expect(portalLine({ path: "/portal", skipped: "no portal page yet" }, 2500)).toBe(
      "/portal: not measured: no portal page yet",
    );
    expect(portalLine({ path: "/portal", error: "could not run: no browser" }, 2500)).toBe(
      "/portal: FAILED: could not run: no browser",
    );
  });
});

describe("preflight-delaying proxy", () => {
  // Long enough that the request sent after the preflight answers first, even on a busy machine.
  const RTT_MS = 1500;
  let upstream: Server;
  let proxy: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    upstream = createServer((request, response) => {
      response.writeHead(request.method === "OPTIONS" ? 204 : 200, { "x-upstream": "yes" });
      request.pipe(response);
    });
    await new Promise<void>((done) => upstream.listen(0, "127.0.0.1", done));
    proxy = await preflightDelayingProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, RTT_MS);
  });
  afterAll(async () => {
    await proxy.close();
    upstream.closeAllConnections();
    await new Promise((done) => upstream.close(done));
  });

  it("holds CORS preflights one round trip and passes everything else through meanwhile", async () => {
    let held = true;
    const started = performance.now();
    const preflight = fetch(`${proxy.url}/rest/v1/profiles`, {
      method: "OPTIONS",
      headers: { origin: "http://127.0.0.1:4000", "access-control-request-method": "GET" },
    }).then((answer) => {
      held = false;
      return answer;
    });
    const post = await fetch(`${proxy.url}/rest/v1/profiles?select=*`, { method: "POST", body: "hello" });
    expect(post.status).toBe(200);
    expect(post.headers.get("x-upstream")).toBe("yes");
    expect(await post.text()).toBe("hello");
    expect(held).toBe(true);
    expect((await preflight).status).toBe(204);
    expect(performance.now() - started).toBeGreaterThanOrEqual(RTT_MS - 5);
  });
});
