/**
 * A session outlives many access tokens: supabase-js refreshes them against the stack and the
 * customer stays signed in across reloads and pages. The pages come from the e2e site; their
 * Auth, REST and Storage calls go to a second stack whose tokens live 5 seconds
 * (`npm run preview -- --jwt-expiry 5`), so several expire within one test.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { START_SCRIPT } from "@advisor-accelerator/local-stack";
import { expect, test } from "@playwright/test";
import { signIn } from "./customers";

const E2E_PORT = Number(process.env.E2E_PORT ?? 4399);
const SHORT_PORT = E2E_PORT + 7;
const TOKEN_SECONDS = 5;

let stack: ChildProcess | undefined;
let dataDir = "";

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "advisor-e2e-short-"));
  // The site the e2e server built (playwright.config.ts); this stack serves only the API here.
  const site = join(tmpdir(), `advisor-e2e-site-${E2E_PORT}`);
  stack = spawn(
    process.execPath,
    [
      START_SCRIPT,
      "--port",
      String(SHORT_PORT),
      "--dir",
      site,
      "--data",
      dataDir,
      "--jwt-expiry",
      String(TOKEN_SECONDS),
    ],
    { stdio: "ignore" },
  );
  await expect(async () => {
    const health = await fetch(`http://localhost:${SHORT_PORT}/auth/v1/health`).catch(() => undefined);
    expect(health?.ok).toBe(true);
  }).toPass({ timeout: 60_000 });
});

test.afterAll(() => {
  stack?.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

test("a customer stays signed in across several token expiries, reloads and pages", async ({ page }) => {
  test.setTimeout(90_000);
  const refreshes: string[] = [];
  await page.route(/^http:\/\/localhost:\d+\/(auth|rest|storage)\/v1\//, async (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === "/auth/v1/token" && url.searchParams.get("grant_type") === "refresh_token") {
      refreshes.push(url.href);
    }
    url.port = String(SHORT_PORT);
    await route.continue({ url: url.href });
  });

  await signIn(page, { id: "", email: "demo@advisoraccelerator.com", password: "advisor-demo-2026" });
  await expect(page).toHaveURL(/\/portal$/);
  // Greeted by the profile's first name (supabase/seed.sql: Dana Whitaker).
  await expect(page.getByRole("heading", { name: /Welcome back, Dana/ })).toBeVisible();

  const visits: [string, () => Promise<void>][] = [
    ["/portal", () => expect(page.getByText("Growth Mindset Mastery").first()).toBeVisible()],
    ["/portal/settings/purchase-history", () => expect(page.getByText("Growth Mindset Mastery").first()).toBeVisible()],
    ["/portal/settings", () => expect(page.getByLabel(/full name/i)).toHaveValue("Dana Whitaker")],
  ];
  for (const [path, showsData] of visits) {
    // Wait until the access token in hand has expired, then use the portal again.
    await page.waitForTimeout((TOKEN_SECONDS + 1) * 1000);
    await page.goto(path);
    await expect(page).toHaveURL(new RegExp(`${path}$`));
    await showsData();
  }
  expect(refreshes.length).toBeGreaterThanOrEqual(3);
});
