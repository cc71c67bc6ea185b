/**
 * `npm start` (packages/local-stack/start.ts, through packages/local-stack/src/site.ts): the port
 * answers only with the finished build. A browser, a test runner or a script waiting for it must
 * never be served the build left in the folder by an earlier run, nor the new one while it is still
 * being written; a taken port is reported before a build is spent on it. The build here is a
 * stand-in that writes the folder as `astro build` does (emptied, then written page by page) and
 * waits for the test to let it finish.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { siteBuildEnv, startSiteStack } from "../../src/site.ts";
import type { Stack } from "../../src/stack.ts";
import { publicAnonKey, publicSupabaseUrl } from "../../../../src/lib/supabase-url.ts";

const folders: string[] = [];
const stacks: Stack[] = [];
afterAll(async () => {
  await Promise.all(stacks.map((stack) => stack.close()));
  folders.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

/** A site folder holding an earlier run's build, as npm start and the end-to-end tests keep theirs. */
function previousBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), "start-site-"));
  folders.push(dir);
  writeFileSync(join(dir, "index.html"), "<h1>Previous build</h1>");
  writeFileSync(join(dir, "retired-page.html"), "<h1>A page the new build no longer has</h1>");
  return dir;
}

/** Whether anything answers at `url`: its status and text, or null when the connection is refused. */
async function answer(url: string): Promise<{ status: number; text: string } | null> {
  try {
    const response = await fetch(url);
    return { status: response.status, text: await response.text() };
  } catch (error) {
    expect((error as { cause?: { code?: string } }).cause?.code).toBe("ECONNREFUSED");
    return null;
  }
}

/** A build that empties the folder, writes the home page's first half, then waits to be finished. */
function slowBuild() {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let started!: (url: string) => void;
  const url = new Promise<string>((resolve) => (started = resolve));
  const build = async (target: string, dir: string) => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "index.html"), "<h1>New bu");
    started(target);
    await finished;
    writeFileSync(join(dir, "index.html"), "<h1>New build</h1>");
  };
  return { build, url, finish };
}

describe("npm start --build", () => {
  it("answers nothing while the site is built, then only the new build", async () => {
    const siteDir = previousBuild();
    const { build, url, finish } = slowBuild();
    const starting = startSiteStack({ siteDir, seed: false, build });
    const target = await url;
    expect(target).toMatch(/^http:\/\/localhost:\d+$/);

    // Mid-build: neither the earlier run's pages nor the half-written one.
    expect(await answer(`${target}/`)).toBeNull();
    expect(await answer(`${target}/retired-page`)).toBeNull();
    expect(await answer(`${target}/auth/v1/health`)).toBeNull();

    finish();
    const stack = await starting;
    stacks.push(stack);
    expect(stack.url).toBe(target);
    // What the site was built with is what the stack answers to.
    expect(siteBuildEnv(target).PUBLIC_SUPABASE_ANON_KEY).toBe(stack.anonKey);
    expect(await answer(`${target}/`)).toEqual({ status: 200, text: "<h1>New build</h1>" });
    expect((await answer(`${target}/retired-page`))?.status).toBe(404);
  }, 60_000);

  it("reports a taken port before building anything", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    let built = false;
    try {
      await expect(
        startSiteStack({
          port,
          siteDir: previousBuild(),
          seed: false,
          build: async () => {
            built = true;
          },
        }),
      ).rejects.toMatchObject({ code: "EADDRINUSE" });
    } finally {
      taken.close();
    }
    expect(built).toBe(false);
  });

  it("opens no port when the build fails", async () => {
    let target = "";
    await expect(
      startSiteStack({
        siteDir: previousBuild(),
        seed: false,
        build: async (url) => {
          target = url;
          throw new Error("the site's build failed (exit 1)");
        },
      }),
    ).rejects.toThrow("the site's build failed");
    expect(await answer(`${target}/`)).toBeNull();
  });

  it("builds with the stack's address and key, which only a build for the local stack accepts", () => {
    const env = siteBuildEnv("http://localhost:4321");
    expect(env.LOCAL_STACK_BUILD).toBe("1");
    expect(publicSupabaseUrl(env.PUBLIC_SUPABASE_URL, { local: true })).toBe("http://localhost:4321");
    expect(publicAnonKey(env.PUBLIC_SUPABASE_ANON_KEY, { local: true })).toBe(env.PUBLIC_SUPABASE_ANON_KEY);
    expect(() => publicSupabaseUrl(env.PUBLIC_SUPABASE_URL)).toThrow("PUBLIC_SUPABASE_URL must be the hosted");
    expect(() => publicAnonKey(env.PUBLIC_SUPABASE_ANON_KEY)).toThrow(
      "PUBLIC_SUPABASE_ANON_KEY is the local stack's key",
    );
  });
});
