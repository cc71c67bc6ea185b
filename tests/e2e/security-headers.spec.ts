/**
 * The build's `_headers` (src/integrations/security-headers.ts), served as the host serves them
 * (packages/static-host/index.ts applies the file): every page and portal view runs under its
 * Content-Security-Policy with no violation, an injected inline script is refused, no page can be
 * framed, at any spelling of its address (`/l%6Fgin`, `//login`), and the embeds of the fixture
 * site (a scheduling form and widget, Wistia's video) are allowed where they are used and nowhere
 * else. A page's file name (`/login.html`) answers with the page's headers, or redirects to the
 * page, on either host DEPLOY.md supports.
 */
import { readdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { staticHandler } from "@advisor-accelerator/static-host";
import { ALL_PATHS_POLICY } from "../../src/integrations/security-headers";
import { createCustomer, signIn } from "./customers";
import { SPEC_ROUTES } from "./routes";
import { FIXTURE_SITE, LOCAL_SITE, PRODUCTION_SITE } from "./servers";

const SESSION_PAGES = ["/login", "/forgot-password", "/reset-password", "/checkout/OS_ACCELERATOR", "/portal"];

/** Collects the page's CSP violations (set before any of its scripts run; CDP scripts are exempt). */
async function watchViolations(page: Page) {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener("securitypolicyviolation", (event) => {
      seen.push(
        `${event.effectiveDirective} ${event.blockedURI || "inline"} (${event.sourceFile}:${event.lineNumber})`,
      );
    });
  });
}
const violations = (page: Page) => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);

/** Scrolls to the bottom, so islands that wait to be visible load and run. */
async function scrollThrough(page: Page) {
  await page.evaluate(async () => {
    for (let y = 0; y < document.body.scrollHeight; y += 600) {
      window.scrollTo(0, y);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  });
  await page.waitForLoadState("networkidle");
}

test("every page runs under its policy with no violation, and says so in its headers", async ({ page }) => {
  test.setTimeout(90_000);
  await watchViolations(page);
  const routes = [...new Set([...SPEC_ROUTES, "/login", "/forgot-password", "/reset-password", "/checkout/nothing"])];
  const found: string[] = [];
  for (const route of routes) {
    const response = await page.goto(route);
    const headers = response!.headers();
    expect(headers["content-security-policy"], route).toContain("script-src 'self' 'sha256-");
    expect(headers["content-security-policy"], route).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    // Its own policy beside the one for all paths (no framing): two policies, both enforced.
    expect(headers["content-security-policy"]!.split(", "), `${route}: two policies`).toEqual([
      ALL_PATHS_POLICY,
      expect.stringContaining("default-src 'self'"),
    ]);
    expect(headers["x-content-type-options"], route).toBe("nosniff");
    expect(headers["strict-transport-security"], route).toMatch(/^max-age=\d+/);
    await scrollThrough(page);
    found.push(...(await violations(page)).map((v) => `${route}: ${v}`));
  }
  expect(found).toEqual([]);
});

test("the portal's views, signed in with an order, run with no violation", async ({ page }) => {
  const customer = await createCustomer({
    orders: [{ product: "GROWTH_MINDSET", status: "completed", cents: 30_000 }],
  });
  await watchViolations(page);
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  await expect(page.getByText(`Signed in as ${customer.email}`)).toBeVisible();
  const found = (await violations(page)).map((v) => `/portal: ${v}`);
  for (const route of ["/portal/settings", "/portal/settings/purchase-history"]) {
    await page.goto(route);
    await page.waitForLoadState("networkidle");
    found.push(...(await violations(page)).map((v) => `${route}: ${v}`));
  }
  expect(found).toEqual([]);
});

test("the member area's pages run with no violation: a course, a lesson with its video, a download", async ({
  page,
}) => {
  const customer = await createCustomer({
    orders: [{ product: "GROWTH_MINDSET", status: "completed", cents: 30_000 }],
  });
  await watchViolations(page);
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  const found: string[] = [];
  for (const route of [
    "/portal/courses/growth-mindset",
    "/portal/courses/growth-mindset/find-your-production-ceiling-belief",
    "/portal/courses/growth-mindset/put-money-beliefs-on-trial",
  ]) {
    const response = await page.goto(route);
    // The rule for all paths says what only a header can; each page's own policy is in its meta tag.
    expect(response!.headers()["content-security-policy"], route).toBe(ALL_PATHS_POLICY);
    expect(response!.headers()["x-frame-options"], route).toBe("DENY");
    await expect(
      page.getByRole("region", { name: "Lesson", exact: true }).or(page.getByText(/of 18 lessons/)),
    ).toBeVisible();
    await page.waitForLoadState("networkidle");
    found.push(...(await violations(page)).map((v) => `${route}: ${v}`));
  }
  // The stand-in player ran under the lesson's policy.
  await page.goto("/portal/courses/growth-mindset/find-your-production-ceiling-belief");
  await expect(page.getByRole("group", { name: "Video player" })).toBeVisible();
  found.push(...(await violations(page)).map((v) => `video: ${v}`));
  expect(found).toEqual([]);
});

test("an injected inline script is refused, and the refusal reported", async ({ page }) => {
  await watchViolations(page);
  for (const route of ["/", "/login", "/checkout/OS_ACCELERATOR"]) {
    await page.goto(route);
    const ran = await page.evaluate(() => {
      const script = document.createElement("script");
      script.textContent = "window.__injected = true";
      document.body.append(script);
      return (window as unknown as { __injected?: boolean }).__injected === true;
    });
    expect(ran, route).toBe(false);
    await expect.poll(() => violations(page)).toContainEqual(expect.stringMatching(/^script-src-elem inline/));
  }
});

/**
 * Other spellings of the pages' addresses: %-escapes, which the hosts decode to find the file but
 * not to match `_headers`, and a doubled slash. Each is the page itself, without its own rule.
 */
const SPELLINGS = [
  "/l%6Fgin",
  "/%6C%6F%67%69%6E",
  "//login",
  "/p%6Frtal",
  "/f%6Frgot-password",
  "/ch%65ckout/OS_ACCELERATOR",
  "/portal/c%6Furses/growth-mindset",
  "/%69ndex",
];

/**
 * Asks `base` for the home page, every page of the session and every spelling: each is the page
 * (or, on Cloudflare Pages, `/%69ndex` a redirect to it), and none may be framed.
 */
async function expectNoFraming(request: APIRequestContext, base: string) {
  for (const route of ["/", ...SESSION_PAGES, ...SPELLINGS]) {
    const response = await request.get(base + route, { maxRedirects: 0 });
    const headers = response.headers();
    expect([200, 308], `${base}${route}`).toContain(response.status());
    expect(headers["x-frame-options"], `${base}${route}`).toBe("DENY");
    expect(headers["content-security-policy"]?.split(", "), `${base}${route}`).toContain(ALL_PATHS_POLICY);
  }
}

test("no page can be framed, by any site, at any spelling of its address", async ({ page }) => {
  test.setTimeout(60_000);
  // A foreign site (another origin, and no policy of its own to refuse frames) frames the sign-in
  // page, at its address and at other spellings of it, which the browser asks for as written.
  const foreign = createServer((req, res) => {
    const src = new URL(req.url ?? "/", "http://foreign").searchParams.get("frame") ?? "";
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(`<iframe title="framed" src="${src.replace(/[&"<>]/g, "")}"></iframe>`);
  });
  await new Promise<void>((resolve) => foreign.listen(0, "127.0.0.1", resolve));
  try {
    const base = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
    for (const route of ["/login", "/l%6Fgin", "//login"]) {
      await page.goto(`${base}/?frame=${encodeURIComponent(LOCAL_SITE + route)}`);
      // Chromium puts its own error page where it refused the document; a framed page keeps its
      // address. The frame's navigation can settle after the page's load event: asked until then.
      const framed = () =>
        page
          .frames()
          .find((frame) => frame.parentFrame() === page.mainFrame())
          ?.url();
      await expect.poll(framed, { message: route }).toMatch(/^chrome-error:/);
      await expect(page.frameLocator("iframe[title=framed]").getByRole("button", { name: "Sign In" })).toHaveCount(0);
    }
  } finally {
    foreign.close();
  }
  // What npm start serves, and the production build as scripts/serve.ts serves it (Netlify's way).
  await expectNoFraming(page.request, LOCAL_SITE);
  await expectNoFraming(page.request, PRODUCTION_SITE);
});

test("third parties are allowed only where they are embedded (the fixture site)", async ({ page }) => {
  const policy = async (route: string) =>
    (await page.request.get(`${FIXTURE_SITE}${route}`)).headers()["content-security-policy"] ?? "";
  // The consultation form's frame on its lead page; the booking widget's frame and script on its own.
  expect(await policy("/get-started-ai")).toContain("frame-src https://forms.scheduling-provider.test");
  expect(await policy("/apply")).toMatch(/script-src [^;]*https:\/\/forms\.scheduling-provider\.test/);
  // Wistia on the OS page only.
  expect(await policy("/advisor-os")).toMatch(/script-src [^;]*https:\/\/fast\.wistia\.com/);
  expect(await policy("/")).not.toContain("wistia");
  // The session's pages: the Supabase project, and no third party at all.
  for (const route of ["/login", "/portal", "/checkout/OS_ACCELERATOR"]) {
    const csp = await policy(route);
    expect(csp, route).toContain("connect-src 'self' https://fixtureproject.supabase.co");
    expect(csp, route).not.toMatch(/wistia|scheduling-provider/);
    expect(csp, route).toContain("frame-src 'none'");
  }
  expect(await policy("/")).not.toContain("supabase.co");
  // Wistia on a lesson with a video, in the policy the page carries; not on its neighbours.
  const metaPolicy = async (route: string) => {
    const html = await (await page.request.get(`${FIXTURE_SITE}${route}`)).text();
    return /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1] ?? "";
  };
  expect(await metaPolicy("/portal/courses/growth-mindset/find-your-production-ceiling-belief")).toMatch(
    /script-src [^;]*https:\/\/fast\.wistia\.com/,
  );
  const plain = await metaPolicy("/portal/courses/growth-mindset/put-money-beliefs-on-trial");
  expect(plain).toContain("connect-src 'self' https://fixtureproject.supabase.co");
  expect(plain).not.toMatch(/wistia|scheduling-provider/);
  // Built as production builds: nothing of the developer's machine in the policies.
  for (const route of ["/", "/login", "/apply"])
    expect(await policy(route), route).not.toMatch(/localhost|127\.0\.0\.1/);
});

/** The security headers of an answer, by name. */
const SECURITY_HEADERS = [
  "content-security-policy",
  "x-frame-options",
  "strict-transport-security",
  "x-content-type-options",
  "referrer-policy",
  "permissions-policy",
];
const securityOf = (headers: Record<string, string>) =>
  Object.fromEntries(SECURITY_HEADERS.map((name) => [name, headers[name] ?? null]));

/**
 * Every page of a build in `dir` at the addresses a host may answer it at besides its own: its
 * file's name (`/login.html`, `/portal/courses/growth-mindset.html`) and, for the home page, `/index`.
 */
function fileAddresses(dir: string): [alias: string, page: string][] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".html") && entry.name !== "404.html")
    .flatMap((entry) => {
      const file = relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/");
      const page = file === "index.html" ? "/" : `/${file.slice(0, -".html".length)}`;
      return [[`/${file}`, page], ...(page === "/" ? [["/index", "/"] as [string, string]] : [])];
    });
}

/** Asks for each address and its page: the same security headers, or (Cloudflare Pages) a redirect to the page. */
async function expectFileAddressesCovered(request: APIRequestContext, base: string, dir: string) {
  const addresses = fileAddresses(dir);
  expect(addresses.length).toBeGreaterThan(50);
  expect(addresses.map(([alias]) => alias)).toEqual(expect.arrayContaining(["/login.html", "/portal.html"]));
  for (const [alias, page] of addresses) {
    const clean = await request.get(base + page, { maxRedirects: 0 });
    expect(clean.status(), page).toBe(200);
    expect(clean.headers()["content-security-policy"], page).toBeTruthy();
    const answer = await request.get(base + alias, { maxRedirects: 0 });
    if (answer.status() === 308) expect(answer.headers().location, alias).toBe(page);
    else {
      expect(answer.status(), alias).toBe(200);
      expect(securityOf(answer.headers()), alias).toEqual(securityOf(clean.headers()));
    }
  }
}

const E2E_PORT = Number(process.env.E2E_PORT ?? 4399);

test.describe("a page's file name (/login.html) is no way around its headers", () => {
  test("on the production build as scripts/serve.ts serves it, as Netlify does", async ({ request }) => {
    test.setTimeout(60_000);
    // The folder playwright.config.ts builds the production site into.
    await expectFileAddressesCovered(request, PRODUCTION_SITE, join(tmpdir(), `advisor-e2e-production-${E2E_PORT}`));
  });

  test("on what npm start serves", async ({ request }) => {
    test.setTimeout(60_000);
    await expectFileAddressesCovered(request, LOCAL_SITE, join(tmpdir(), `advisor-e2e-site-${E2E_PORT}`));
  });

  test("on the production build served as Cloudflare Pages serves it: redirected to the page", async ({
    request,
    page,
  }) => {
    test.setTimeout(60_000);
    const dir = join(tmpdir(), `advisor-e2e-production-${E2E_PORT}`);
    const server = createServer(staticHandler(dir, { host: "cloudflare" }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://localhost:${(server.address() as AddressInfo).port}`;
    try {
      await expectFileAddressesCovered(request, base, dir);
      // Its answers to the other spellings: the page, or a redirect to it, never to be framed.
      await expectNoFraming(request, base);
      // A visitor who follows such a link lands on the page's address, under its policy.
      const response = await page.goto(`${base}/login.html`);
      expect(new URL(page.url()).pathname).toBe("/login");
      expect(response!.headers()["x-frame-options"]).toBe("DENY");
    } finally {
      server.close();
    }
  });
});
