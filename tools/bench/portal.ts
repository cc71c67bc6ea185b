// Portal time-to-data and lesson time-to-content, a part of `npm run bench`: from navigation to
// the portal's orders and profile shown, and from navigation to a lesson's body shown (the demo's
// next lesson, whose text comes from the database once the session is known), for the seeded
// demo customer (2 orders, a course in progress) coming back with a persisted session,
// cold (a new browser context: empty cache), under Lighthouse's mobile throttling applied for
// real through the Chrome DevTools Protocol (150 ms per request, 1.6 Mbps down, 750 Kbps up, 4x
// CPU slowdown, the moto g power screen). The portal page calls
// `performance.mark("portal-data-shown")` once both are rendered; its startTime (ms since the
// navigation started) is the figure, median of the runs; a lesson page marks
// "lesson-content-shown" the same way.
//
// The site is built for the local stack (PUBLIC_SUPABASE_URL pointing at it) into a temporary
// folder and served as the CDN serves it (packages/static-host/index.ts: gzip, pretty URLs), on its
// own origin: the stack (auth, REST on PGlite, seeded) answers on another, so the browser makes the
// CORS preflights production makes (static CDN + Supabase); Chrome's emulation does not throttle
// them, so a pass-through in front of the stack holds each one round trip. Each run signs the
// customer in through the auth API and puts the session where supabase-js persists it
// (localStorage, `sb-<first host label>-auth-token`) before the page loads.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, CDPSession } from "@playwright/test";
import { siteBuildEnv, type TestStack } from "@advisor-accelerator/local-stack";
import { sessionStorageKey } from "../../src/lib/session-key.ts";
import type { DeskDataReport } from "./desk-data.ts";
import { firstLine, messageOf } from "./errors.ts";
import { median } from "./lhr.ts";
import type { ServedSite } from "./serve.ts";

const root = resolve(import.meta.dirname, "..", "..");

export const PORTAL_PATH = "/portal";
/** What the portal page marks once the orders and the profile are both rendered. */
export const PORTAL_MARK = "portal-data-shown";
/** The lesson measured: the demo customer's next lesson (supabase/seed.sql), which has a video. */
export const LESSON_PATH = "/portal/courses/growth-mindset/name-your-call-reluctance";
/** What a lesson page marks once its body is rendered (src/features/course/store.ts). */
export const LESSON_MARK = "lesson-content-shown";

/** The team's desk, measured as the demo admin (supabase/seed.sql) on the bench's large data set. */
export const DESK_PATH = "/desk";
/** What the desk marks once its first page of rows is rendered (src/features/desk/Desk.tsx). */
export const DESK_MARK = "desk-data-shown";

/**
 * What each measured page is: its path, the mark it sets, and the requests whose 2xx answers must
 * have arrived before the mark for it to count (a name, and the API path).
 */
export interface Target {
  path: string;
  mark: string;
  data: readonly (readonly [name: string, path: string])[];
}

export const TARGETS: { portal: Target; lesson: Target; desk: Target } = {
  portal: {
    path: PORTAL_PATH,
    mark: PORTAL_MARK,
    data: [
      ["orders", "/rest/v1/stripe_user_orders"],
      ["profile", "/rest/v1/profiles"],
    ],
  },
  lesson: { path: LESSON_PATH, mark: LESSON_MARK, data: [["lesson", "/rest/v1/course_lessons"]] },
  desk: { path: DESK_PATH, mark: DESK_MARK, data: [["leads", "/rest/v1/leads"]] },
};

/**
 * Lighthouse's mobile settings (lighthouse/core/config/constants.js, mobileSlow4G and the moto g
 * power screen). Lighthouse simulates these; here they are applied to a real load: the network's
 * round trip as a per-request latency, its throughput as the link's. (Lighthouse's own "devtools"
 * throttling method would apply 562.5 ms and 1474.6 Kbps, its factors for request-level latency.)
 */
export const MOBILE_THROTTLING = { rttMs: 150, downloadKbps: 1.6 * 1024, uploadKbps: 750, cpuSlowdown: 4 };
export type Throttling = typeof MOBILE_THROTTLING;
export const MOBILE_DEVICE = {
  viewport: { width: 412, height: 823 },
  screen: { width: 412, height: 823 },
  deviceScaleFactor: 1.75,
  isMobile: true,
  hasTouch: true,
  userAgent:
    "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/136.0.0.0 Mobile Safari/537.36",
};

/** How the page's observer tags its console message with the mark. */
const MARK_TAG = "[bench:portal-mark]";

/** The browser's launch flags, as the end-to-end tests launch it (playwright.config.ts). */
export const BROWSER_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

/**
 * A request of one load as recorded over CDP: times in epoch ms (`finishedAt` null when it never
 * finished), bytes as transferred (gzip, headers included).
 */
export interface RecordedRequest {
  url: string;
  /** CDP's resource type ("Script", "Fetch", "Preflight"...). */
  type: string | null;
  mimeType?: string | null;
  status: number | null;
  sentAt: number;
  finishedAt: number | null;
  bytes: number;
  error?: string;
}

/** A request started before the mark, for bench/latest.json: ms since the navigation started. */
export interface TimelineEntry {
  start: number;
  end: number | null;
  type: string | null;
  status: number | null;
  bytes: number;
  url: string;
}

/** One load's figures (see tallyRequests), with the time to the mark. */
export interface RunFigures {
  ms: number;
  requests: number;
  preflights: number;
  jsBytes: number;
  jsBytesBeforeMark: number;
  bytes: number;
}

/** One load as measureOnce reports it: its figures and the requests before the mark. */
export interface PortalRun extends RunFigures {
  beforeMark: TimelineEntry[];
}

export interface FailedRun {
  error: string;
}

/**
 * The runs of one page (see portalResult): the median time of those that succeeded, with the
 * figures of the run it comes from; or, when none did, the first error.
 */
export type PortalMeasurement<R extends RunFigures = RunFigures> = {
  path: string;
  throttling: Throttling;
  runs: number;
  failedRuns: number;
  perRun: (R | FailedRun)[];
} & ({ medianMs: null; error: string } | ({ medianMs: number; error?: undefined } & Omit<RunFigures, "ms">));

/** The machine's load average over the runs, on its number of cores. */
export interface LoadAverage {
  before: number;
  after: number;
  cores: number;
}

/** The portal part of the bench: not run (no portal page), broken, or measured with its lesson. */
export type PortalReport =
  | { path: string; skipped: string }
  | { path: string; error: string }
  | (PortalMeasurement & {
      loadAverage?: LoadAverage;
      lesson?: PortalMeasurement & { loadAverage?: LoadAverage };
      desk?: PortalMeasurement & { loadAverage?: LoadAverage; data?: DeskDataReport };
    });

/** The parameters of CDP's Network.emulateNetworkConditions (throughputs in bytes per second). */
export function networkConditions({ rttMs, downloadKbps, uploadKbps }: Throttling = MOBILE_THROTTLING) {
  return {
    offline: false,
    latency: rttMs,
    downloadThroughput: (downloadKbps * 1024) / 8,
    uploadThroughput: (uploadKbps * 1024) / 8,
  };
}

const isJs = (r: RecordedRequest) => r.type === "Script" || /\bjavascript\b/.test(r.mimeType ?? "");
const ok = (r: RecordedRequest) => typeof r.status === "number" && r.status >= 200 && r.status < 300;

/**
 * What the browser fetched for one load, from the requests recorded over CDP. `markAt`: the
 * mark's epoch ms. Returns the requests started before the mark (CORS preflights counted apart),
 * the JavaScript transferred (all of it, and what had arrived by the mark) and all bytes.
 */
export function tallyRequests(requests: readonly RecordedRequest[], markAt: number): Omit<RunFigures, "ms"> {
  const before = requests.filter((r) => r.sentAt <= markAt);
  const sum = (list: readonly RecordedRequest[]) => list.reduce((n, r) => n + r.bytes, 0);
  const js = requests.filter((r) => isJs(r) && r.type !== "Preflight");
  return {
    requests: before.filter((r) => r.type !== "Preflight").length,
    preflights: before.filter((r) => r.type === "Preflight").length,
    jsBytes: sum(js),
    jsBytesBeforeMark: sum(js.filter((r) => r.finishedAt !== null && r.finishedAt <= markAt)),
    bytes: sum(requests),
  };
}

/**
 * The requests started before the mark, in order, for bench/latest.json (what to cut): times in
 * ms since the navigation started (`timeOrigin`, epoch ms), `end` null when still loading at the
 * mark; the URL without its query.
 */
export function requestTimeline(
  requests: readonly RecordedRequest[],
  timeOrigin: number,
  markAt: number,
): TimelineEntry[] {
  const ms = (at: number) => Math.round(at - timeOrigin);
  return requests
    .filter((r) => r.sentAt <= markAt)
    .sort((a, b) => a.sentAt - b.sentAt)
    .map((r) => ({
      start: ms(r.sentAt),
      end: r.finishedAt !== null && r.finishedAt <= markAt ? ms(r.finishedAt) : null,
      type: r.type,
      status: r.status,
      bytes: r.bytes,
      url: r.url.split("?")[0] ?? r.url,
    }));
}

/**
 * Null when the data the mark claims was fetched before it: for the portal a 2xx answer from the
 * orders view and from the profiles table, both finished by the mark (`data`: another target's
 * requests). Otherwise what is missing, so a mark set after an error (or before the data) never
 * passes for a fast page.
 */
export function dataProblem(
  requests: readonly RecordedRequest[],
  markAt: number,
  data: Target["data"] = TARGETS.portal.data,
): string | null {
  const problems: string[] = [];
  for (const [name, path] of data) {
    const calls = requests.filter((r) => r.type !== "Preflight" && new URL(r.url).pathname === path);
    const done = calls.find((r) => ok(r) && r.finishedAt !== null && r.finishedAt <= markAt);
    if (done) continue;
    if (!calls.length) problems.push(`no ${name} request (${path}) before the mark`);
    else if (!calls.some(ok)) problems.push(`${name}: ${calls.map((r) => r.status ?? "no answer").join(", ")}`);
    else problems.push(`${name} answered after the mark`);
  }
  return problems.length ? problems.join("; ") : null;
}

/**
 * The portal's entry in the report (and bench/latest.json) from its runs: the median time of the
 * runs that succeeded and the figures of the run it comes from (the lower middle one, as lhr.ts
 * takes medians); `error` when none succeeded.
 */
export function portalResult<R extends RunFigures>(
  runs: (R | FailedRun)[],
  { path = PORTAL_PATH, throttling = MOBILE_THROTTLING }: { path?: string; throttling?: Throttling } = {},
): PortalMeasurement<R> {
  const good = runs.filter((r): r is R => !("error" in r));
  const failed = runs.filter((r): r is FailedRun => "error" in r);
  const result = { path, throttling, runs: runs.length, failedRuns: failed.length, perRun: runs };
  const medianMs = median(good.map((r) => r.ms));
  const chosen = good.find((r) => r.ms === medianMs);
  if (medianMs === null || !chosen) return { ...result, medianMs: null, error: failed[0]?.error ?? "no run" };
  return {
    ...result,
    medianMs,
    requests: chosen.requests,
    preflights: chosen.preflights,
    jsBytes: chosen.jsBytes,
    jsBytesBeforeMark: chosen.jsBytesBeforeMark,
    bytes: chosen.bytes,
  };
}

/** The machine's load average over the last minute, to two decimals. */
const oneMinuteLoad = () => Number((loadavg()[0] ?? 0).toFixed(2));

/** Whether the site has a portal page to measure (src/pages/portal.astro or src/pages/portal/). */
export function hasPortalPage(srcPages = join(root, "src", "pages")): boolean {
  return ["portal.astro", "portal.md", "portal.mdx", "portal"].some((name) => existsSync(join(srcPages, name)));
}

/**
 * `astro build` into `dir` with supabase-js pointed at `supabaseUrl`, as `npm start` builds
 * (packages/local-stack/src/site.ts): lesson videos on the stack's Wistia stand-in, reached through
 * the same URL.
 */
export async function buildForStack(dir: string, { supabaseUrl }: { supabaseUrl: string }): Promise<void> {
  const astro = join(root, "node_modules", "astro", "bin", "astro.mjs");
  const output: Buffer[] = [];
  const code = await new Promise<number | null>((done, fail) => {
    const child = spawn(process.execPath, [astro, "build", "--outDir", dir], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        ASTRO_TELEMETRY_DISABLED: "1",
        FORCE_COLOR: "0",
        NO_COLOR: "1",
        ...siteBuildEnv(supabaseUrl),
        EMBED_WISTIA_PLAYER_URL: `${supabaseUrl}/_wistia/player.js`,
      },
    });
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("error", fail);
    child.on("close", done);
  });
  if (code !== 0) {
    process.stderr.write(Buffer.concat(output).toString("utf8"));
    throw new Error(`astro build for the portal exited with ${code}`);
  }
}

/**
 * The API as the browser reaches it: a pass-through to the stack on its own port that answers
 * CORS preflights one round trip late. Chrome's network emulation throttles requests but not
 * their preflights, which on a phone cost a round trip like any request. Answers { url, close }.
 */
export async function preflightDelayingProxy(
  target: string,
  rttMs: number,
): Promise<{ url: string; close(): Promise<void> }> {
  const { createServer, request } = await import("node:http");
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const forward = () => {
      const up = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      up.on("error", () => res.destroy());
      req.pipe(up);
    };
    if (req.method === "OPTIONS" && req.headers["access-control-request-method"]) setTimeout(forward, rttMs);
    else forward();
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", done);
  });
  return {
    url: `http://${upstream.hostname}:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Signs the customer in through the auth API; answers the session supabase-js would persist. */
async function signIn(
  apiUrl: string,
  anonKey: string,
  { email, password }: { email: string; password: string },
): Promise<Record<string, unknown>> {
  const response = await fetch(`${apiUrl}/auth/v1/token?grant_type=password`, {
    method: "POST",
    headers: { apikey: anonKey, "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  const body: unknown = await response.json().catch(() => null);
  if (response.ok && isRecord(body) && body.access_token) return body;
  const said = isRecord(body) ? (body.msg ?? body.error_description ?? body.message ?? "") : "";
  throw new Error(`sign-in failed: ${response.status} ${said}`.trim());
}

/** Where and when the page set its mark, as its observer reports it through the console. */
interface MarkAt {
  markMs: number;
  timeOrigin: number;
  pathname: string;
}

/** The observer's report (MARK_TAG, then JSON), or null for any other console message. */
function parseMark(text: string): MarkAt | null {
  const [tag, json] = text.split(" ");
  if (tag !== MARK_TAG || json === undefined) return null;
  let at: unknown;
  try {
    at = JSON.parse(json);
  } catch {
    return null;
  }
  if (!isRecord(at)) return null;
  const { markMs, timeOrigin, pathname } = at;
  return typeof markMs === "number" && typeof timeOrigin === "number" && typeof pathname === "string"
    ? { markMs, timeOrigin, pathname }
    : null;
}

/** Records every request of the page's CDP session: answers the list tallyRequests reads. */
function recordRequests(cdp: CDPSession) {
  const byId = new Map<string, RecordedRequest & { offsetMs: number }>();
  const inFlight = new Set<string>();
  let lastActivity = Date.now();
  const touch = () => (lastActivity = Date.now());
  cdp.on("Network.requestWillBeSent", (e) => {
    touch();
    // A redirect reuses the id: the earlier hop is a request of its own.
    const previous = byId.get(e.requestId);
    if (previous && e.redirectResponse) {
      byId.set(`${e.requestId}:${e.timestamp}`, { ...previous, status: e.redirectResponse.status, finishedAt: e.wallTime * 1000 });
    }
    byId.set(e.requestId, {
      url: e.request.url,
      type: e.type ?? null,
      mimeType: null,
      status: null,
      sentAt: e.wallTime * 1000,
      // CDP's timestamps are monotonic seconds; wall time is given only here.
      offsetMs: e.wallTime * 1000 - e.timestamp * 1000,
      finishedAt: null,
      bytes: 0,
    });
    inFlight.add(e.requestId);
  });
  cdp.on("Network.responseReceived", (e) => {
    touch();
    const r = byId.get(e.requestId);
    if (!r) return;
    r.status = e.response.status;
    r.mimeType = e.response.mimeType;
    if (e.type) r.type = e.type;
  });
  const end = (e: { requestId: string; timestamp: number }, bytes: number) => {
    touch();
    inFlight.delete(e.requestId);
    const r = byId.get(e.requestId);
    if (!r) return;
    r.finishedAt = r.offsetMs + e.timestamp * 1000;
    r.bytes = bytes;
  };
  cdp.on("Network.loadingFinished", (e) => end(e, e.encodedDataLength));
  cdp.on("Network.loadingFailed", (e) => {
    end(e, 0);
    const r = byId.get(e.requestId);
    if (r) r.error = e.errorText;
  });
  return {
    requests: (): RecordedRequest[] =>
      [...byId.values()].map(({ offsetMs: _offset, ...r }) => ({ ...r, finishedAt: r.finishedAt ?? null })),
    /** Resolves once nothing has been in flight for `quietMs` (at most `maxMs`). */
    async settle(quietMs = 500, maxMs = 5000): Promise<void> {
      const started = Date.now();
      while (Date.now() - started < maxMs) {
        if (inFlight.size === 0 && Date.now() - lastActivity >= quietMs) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

/** What one load needs: the site and the API, the customer, the conditions and the page. */
interface LoadOptions {
  siteOrigin: string;
  apiUrl: string;
  anonKey: string;
  user: { email: string; password: string };
  throttling: Throttling;
  timeoutMs: number;
  target: Target;
}

/** One cold load of `target` in a new browser context; answers the run's figures or { error }. */
async function measureOnce(
  browser: Browser,
  { siteOrigin, apiUrl, anonKey, user, throttling, timeoutMs, target }: LoadOptions,
): Promise<PortalRun | FailedRun> {
  const session = await signIn(apiUrl, anonKey, user);
  const context = await browser.newContext({ ...MOBILE_DEVICE, serviceWorkers: "block" });
  try {
    // A returning customer: the session is where supabase-js persisted it before the page loads.
    // The mark is reported by an observer the page runs, through the console: waiting for it puts
    // no polling or injected script on the throttled main thread.
    await context.addInitScript(
      ({ origin, key, value, mark, tag }) => {
        if (location.origin !== origin) return;
        localStorage.setItem(key, value);
        new PerformanceObserver((list, observer) => {
          const entry = list.getEntriesByName(mark)[0];
          if (!entry) return;
          observer.disconnect();
          const at = { markMs: entry.startTime, timeOrigin: performance.timeOrigin, pathname: location.pathname };
          console.debug(tag, JSON.stringify(at));
        }).observe({ type: "mark", buffered: true });
      },
      { origin: siteOrigin, key: sessionStorageKey(apiUrl), value: JSON.stringify(session), mark: target.mark, tag: MARK_TAG },
    );
    const page = await context.newPage();
    const marked = new Promise<MarkAt>((resolve) => {
      page.on("console", (message) => {
        const at = parseMark(message.text());
        if (at) resolve(at);
      });
    });
    const cdp = await context.newCDPSession(page);
    const recorder = recordRequests(cdp);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", networkConditions(throttling));
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: throttling.cpuSlowdown });

    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
    await page.goto(`${siteOrigin}${target.path}`, { waitUntil: "commit", timeout: timeoutMs });
    const at = await Promise.race([marked, timeout]).finally(() => clearTimeout(timer));
    if (!at) {
      const where = await page.evaluate(() => `${location.pathname}: ${document.title}`).catch(() => page.url());
      return { error: `no "${target.mark}" mark within ${timeoutMs / 1000} s (at ${where})` };
    }
    const { markMs, timeOrigin, pathname } = at;
    if (pathname !== target.path) return { error: `the mark was set on ${pathname}, not ${target.path}` };
    await recorder.settle();
    const requests = recorder.requests();
    const markAt = timeOrigin + markMs;
    const problem = dataProblem(requests, markAt, target.data);
    if (problem) return { error: `mark at ${Math.round(markMs)} ms without the data: ${problem}` };
    return {
      ms: Math.round(markMs),
      ...tallyRequests(requests, markAt),
      beforeMark: requestTimeline(requests, timeOrigin, markAt),
    };
  } finally {
    await context.close().catch(() => {});
  }
}

/**
 * Measures the portal `runs` times, then (with `lessons`) the lesson `runs` times. `chrome`: the
 * browser to drive (scripts/ensure-chromium.ts's findChromium()). `prepare(dir, { supabaseUrl,
 * anonKey })` puts the site into `dir` once the stack's URL is known; by default it builds the
 * site for the stack and publishes its lessons to it (and without a portal page in src/pages the
 * part is skipped). Answers portalResult() with the lesson's under `lesson`, or { skipped } /
 * { error } when the part could not run.
 */
export async function runPortalBench({
  runs = 3,
  chrome,
  log = () => {},
  prepare,
  throttling = MOBILE_THROTTLING,
  timeoutMs = 30_000,
  lessons = !prepare,
  desk = !prepare,
}: {
  runs?: number;
  chrome?: string | null;
  log?: (line: string) => void;
  prepare?: (dir: string, target: { supabaseUrl: string; anonKey: string }) => Promise<void>;
  throttling?: Throttling;
  timeoutMs?: number;
  lessons?: boolean;
  /** Also the desk, as the demo admin, once the bench's large data set is written. */
  desk?: boolean;
} = {}): Promise<PortalReport> {
  if (!prepare && !hasPortalPage())
    return { path: PORTAL_PATH, skipped: "no portal page yet (src/pages/portal)" };
  if (!chrome) return { path: PORTAL_PATH, error: "no browser: install chromium or set CHROME_PATH" };
  const { DEMO_STAFF, DEMO_USER, startTestStack } = await import("@advisor-accelerator/local-stack");
  const { resolveFile } = await import("@advisor-accelerator/static-host");
  const { serveDist } = await import("./serve.ts");
  const { chromium } = await import("@playwright/test");

  const siteDir = mkdtempSync(join(tmpdir(), "bench-portal-site-"));
  let stack: TestStack | undefined;
  let api: { url: string; close(): Promise<void> } | undefined;
  let site: ServedSite | undefined;
  let browser: Browser | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    stack?.stopSync();
    rmSync(siteDir, { recursive: true, force: true });
    rmSync(`${siteDir}-course`, { recursive: true, force: true });
    process.kill(process.pid, signal);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    // Every run signs in: no rate limits.
    const unlimited = { tokenRefresh: 1e9, signInSignUps: 1e9, tokenVerifications: 1e9 };
    stack = await startTestStack({ name: "PGlite" }, { seed: true, config: { auth: { rateLimit: unlimited } } });
    api = await preflightDelayingProxy(stack.url, throttling.rttMs);
    const target = { supabaseUrl: api.url, anonKey: stack.anonKey };
    if (prepare) await prepare(siteDir, target);
    else {
      log(`  building the site for the stack at ${api.url}…`);
      const started = Date.now();
      await buildForStack(siteDir, target);
      log(`  built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    if (lessons) {
      // The lessons' bodies, as a deploy publishes them (npm run course:publish).
      const { publishCourse } = await import("../../src/features/course/publish.server.ts");
      await publishCourse(stack.admin(), `${siteDir}-course`);
    }
    if (!(await resolveFile(siteDir, PORTAL_PATH)))
      return { path: PORTAL_PATH, skipped: `the build has no page at ${PORTAL_PATH}` };
    site = await serveDist(siteDir);
    const launched = await chromium.launch({ executablePath: chrome, args: BROWSER_FLAGS });
    browser = launched;

    // Real throttling multiplies whatever else the machine does: the load goes into the report.
    const cores = availableParallelism();
    const loadBefore = oneMinuteLoad();
    if (loadBefore > cores)
      log(`  note: load average ${loadBefore} on ${cores} cores; other work slows the runs`);
    const options = { siteOrigin: site.origin, apiUrl: api.url, anonKey: stack.anonKey, user: DEMO_USER, throttling, timeoutMs };
    const measure = async (target: Target, user = DEMO_USER) => {
      const results: (PortalRun | FailedRun)[] = [];
      for (let i = 1; i <= runs; i++) {
        let run: PortalRun | FailedRun;
        try {
          run = await measureOnce(launched, { ...options, user, target });
        } catch (error) {
          run = { error: firstLine(error) };
        }
        results.push(run);
        log(
          `  ${target.path} run ${i}/${runs}: ` +
            ("error" in run
              ? `failed: ${run.error}`
              : `${run.ms} ms, ${run.requests} requests (+${run.preflights} preflights) before the mark, ` +
                `JS ${(run.jsBytes / 1024).toFixed(1)} KB transferred`),
        );
      }
      return results;
    };
    const portalRuns = await measure(TARGETS.portal);
    const lessonRuns = lessons ? await measure(TARGETS.lesson) : null;
    const loadAverage = { before: loadBefore, after: oneMinuteLoad(), cores };
    let deskReport: (PortalMeasurement & { loadAverage: LoadAverage; data: DeskDataReport }) | null = null;
    if (desk) {
      // After the portal's runs, so that they meet the demo's data alone.
      const { DESK_DATA, seedDeskData } = await import("./desk-data.ts");
      log(`  writing the desk's data: ${DESK_DATA.students} students, ${DESK_DATA.leads} leads…`);
      const data = await seedDeskData(stack.db);
      log(`  written in ${(data.ms / 1000).toFixed(1)} s`);
      const deskBefore = oneMinuteLoad();
      const deskRuns = await measure(TARGETS.desk, DEMO_STAFF);
      deskReport = {
        ...portalResult(deskRuns, { path: DESK_PATH, throttling }),
        loadAverage: { before: deskBefore, after: oneMinuteLoad(), cores },
        data,
      };
    }
    return {
      ...portalResult(portalRuns, { throttling }),
      loadAverage,
      ...(lessonRuns ? { lesson: { ...portalResult(lessonRuns, { path: LESSON_PATH, throttling }), loadAverage } } : {}),
      ...(deskReport ? { desk: deskReport } : {}),
    };
  } catch (error) {
    return { path: PORTAL_PATH, error: `could not run: ${firstLine(error)}` };
  } finally {
    await browser?.close().catch(() => {});
    await site?.close().catch(() => {});
    await api?.close().catch(() => {});
    await stack?.stop().catch((error: unknown) => console.error(`  cleanup: ${messageOf(error)}`));
    rmSync(siteDir, { recursive: true, force: true });
    rmSync(`${siteDir}-course`, { recursive: true, force: true });
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
  }
}
